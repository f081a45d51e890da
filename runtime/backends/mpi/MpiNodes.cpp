// MpiNodes: the shared-memory split, its emulation, the node layout and the job's topology.
#include "runtime/backends/mpi/MpiNodes.h"

#include "runtime/backends/mpi/MpiError.h"
#include "runtime/backends/mpi/OwnedComm.h"
#include "runtime/exec/EnvSettings.h"
#include "runtime/topology/Generators.h"

#include <climits>
#include <map>

namespace collplan::mpi {
namespace {

std::string context() { return "the mpi backend finding its nodes"; }

/// Every rank's `mine` on every rank of `comm`.
std::vector<int> allGatherInt(MPI_Comm comm, int mine, int ranks) {
  std::vector<int> all(size_t(ranks), 0);
  checkMpi(MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, comm), "MPI_Allgather",
           context);
  return all;
}

/// Broadcasts rank 0's `text` (which only rank 0 passes) to every rank of `comm`.
std::string broadcast(MPI_Comm comm, std::string text) {
  unsigned long long length = text.size();
  checkMpi(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm), "MPI_Bcast", context);
  if (length > INT_MAX)
    throw RuntimeError(ErrorCode::Internal, context() + ": a topology of " +
                                                std::to_string(length) + " bytes");
  text.resize(size_t(length));
  checkMpi(MPI_Bcast(text.data(), int(length), MPI_CHAR, 0, comm), "MPI_Bcast", context);
  return text;
}

}  // namespace

NodeSettings NodeSettings::fromEnvironment() {
  NodeSettings s;
  s.emulatedNodes = int(unsignedFromEnv("COLLPLAN_MPI_NODES", 0,
                                        "a node count from 1 to 65536 (0: the real machines)",
                                        65536));
  s.sharedMemory = unsignedFromEnv("COLLPLAN_MPI_SHM", 1, "0 or 1", 1) != 0;
  return s;
}

std::string NodeLayout::describe() const {
  std::string text = std::to_string(nodes()) + (nodes() == 1 ? " node:" : " nodes:");
  for (const std::vector<int> &ranks : ranksOf) {
    text += " [";
    for (size_t i = 0; i < ranks.size(); ++i) text += (i ? " " : "") + std::to_string(ranks[i]);
    text += "]";
  }
  return text;
}

NodeSplit splitByNode(MPI_Comm user, const NodeSettings &settings) {
  // Open MPI 4.1 crashes splitting an intercommunicator by type instead of returning an error.
  int inter = 0;
  checkMpi(MPI_Comm_test_inter(user, &inter), "MPI_Comm_test_inter", context);
  if (inter)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "the communicator is an intercommunicator: collplan runs collectives "
                       "among the processes of one group (an intracommunicator); merge it first "
                       "(MPI_Intercomm_merge)");
  // On a duplicate whose errors return, so a failure is a RuntimeError with MPI's reason, not
  // the user's error handler aborting the job.
  const OwnedComm owned(user, "the mpi backend finding its nodes");
  const MPI_Comm comm = owned.get();
  int rank = 0, ranks = 0;
  checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank", context);
  checkMpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size", context);
  if (settings.emulatedNodes > ranks)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "COLLPLAN_MPI_NODES=" + std::to_string(settings.emulatedNodes) +
                           " asks for more nodes than the job's " + std::to_string(ranks) +
                           " ranks");
  MPI_Comm machine = MPI_COMM_NULL;
  checkMpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &machine),
           "MPI_Comm_split_type", context);
  const int emulated =
      settings.emulatedNodes > 0 ? int(int64_t(rank) * settings.emulatedNodes / ranks) : 0;
  NodeSplit split;
  MPI_Comm_size(machine, &split.machineRanks);
  const int code = MPI_Comm_split(machine, emulated, rank, &split.node);
  MPI_Comm_free(&machine);
  checkMpi(code, "MPI_Comm_split", context);
  MPI_Comm_set_errhandler(split.node, MPI_ERRORS_RETURN);

  // A node is named by its lowest rank (rank 0 of the node communicator, ordered by rank).
  int nodeRank = 0, lowest = rank;
  checkMpi(MPI_Comm_rank(split.node, &nodeRank), "MPI_Comm_rank", context);
  checkMpi(MPI_Bcast(&lowest, 1, MPI_INT, 0, split.node), "MPI_Bcast", context);
  const std::vector<int> lowestOf = allGatherInt(comm, lowest, ranks);
  std::map<int, int> idOfLowest;
  for (int r = 0; r < ranks; ++r) idOfLowest.emplace(lowestOf[size_t(r)], 0);
  int next = 0;
  for (auto &entry : idOfLowest) entry.second = next++;
  split.layout.ranksOf.resize(idOfLowest.size());
  for (int r = 0; r < ranks; ++r) {
    const int node = idOfLowest.at(lowestOf[size_t(r)]);
    split.layout.nodeOf.push_back(node);
    split.layout.ranksOf[size_t(node)].push_back(r);
  }
  return split;
}

Topology jobTopology(MPI_Comm comm, const NodeLayout &layout) {
  int rank = 0;
  checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank", context);
  std::string text;
  if (rank == 0) {
    try {
      std::map<int, Topology> machineOfSize;
      std::vector<Topology> machines;
      for (const std::vector<int> &ranks : layout.ranksOf) {
        const int size = int(ranks.size());
        auto it = machineOfSize.find(size);
        if (it == machineOfSize.end())
          it = machineOfSize.emplace(size, localMachine(LocalMachineParams{size})).first;
        machines.push_back(it->second);
      }
      Topology topology = multiNode(machines, layout.ranksOf, LinkSpec{12.5, 2.0, true});
      topology.name = "mpi job (" + layout.describe() + ")";
      text = "K" + topologyToJson(topology).dump();
    } catch (const std::exception &e) {
      text = "E" + std::string(e.what());
    }
  }
  text = broadcast(comm, std::move(text));
  if (text.empty() || text[0] != 'K')
    throw RuntimeError(ErrorCode::System, "the mpi backend could not describe its job's "
                                          "topology on rank 0: " + text.substr(text.empty() ? 0 : 1));
  return topologyFromJson(nlohmann::json::parse(text.substr(1)), "the mpi job's topology");
}

}  // namespace collplan::mpi
