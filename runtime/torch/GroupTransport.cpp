// GroupTransport: a process group's communicator on cpu-shm, or on the mpi backend over an MPI
// communicator of the group's processes.
#include "runtime/torch/GroupTransport.h"

#ifdef COLLPLAN_TORCH_MPI
#include "collplan_mpi.hpp"
#endif

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace collplan::distributed {
namespace {

const char *optionalEnv(const char *name) {
  const char *value = std::getenv(name);
  return value && *value ? value : nullptr;
}

#ifdef COLLPLAN_TORCH_MPI
/// Whether an MPI launcher started this process (Open MPI's mpirun, MPICH's Hydra, PMIx).
bool startedByMpiLauncher() {
  return optionalEnv("OMPI_COMM_WORLD_SIZE") || optionalEnv("PMI_SIZE") ||
         optionalEnv("PMIX_RANK");
}

/// Initialises MPI at MPI_THREAD_MULTIPLE when the program has not, finalising it at exit.
void ensureMpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = 0;
  if (!initialized) {
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Init_thread failed");
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Finalize();
    });
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_MULTIPLE)
    throw std::runtime_error(
        "the collplan backend on mpi needs MPI_THREAD_MULTIPLE (each group's calls run on a "
        "thread of its own), and MPI provides level " + std::to_string(provided) +
        (initialized ? ": initialise MPI with MPI_Init_thread(MPI_THREAD_MULTIPLE)" : ""));
}

/// An MPI communicator of the group's processes in group-rank order: each rank publishes its
/// MPI_COMM_WORLD rank in `store` and reads the others'.
MPI_Comm groupCommunicator(c10d::Store &store, int rank, int size) {
  int worldRank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  const std::string mine = std::to_string(worldRank);
  store.set("collplan/mpi-rank/" + std::to_string(rank),
            std::vector<uint8_t>(mine.begin(), mine.end()));
  std::vector<int> worldRanks(size_t(size), 0);
  for (int r = 0; r < size; ++r) {
    const std::vector<uint8_t> value = store.get("collplan/mpi-rank/" + std::to_string(r));
    worldRanks[size_t(r)] = std::atoi(std::string(value.begin(), value.end()).c_str());
  }
  MPI_Group world, members;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, size, worldRanks.data(), &members);
  MPI_Comm comm = MPI_COMM_NULL;
  const int status = MPI_Comm_create_group(MPI_COMM_WORLD, members, /*tag=*/7301, &comm);
  MPI_Group_free(&members);
  MPI_Group_free(&world);
  if (status != MPI_SUCCESS || comm == MPI_COMM_NULL)
    throw std::runtime_error("MPI_Comm_create_group over the group's processes failed");
  return comm;
}

GroupComm openMpiGroup(c10d::Store &store, int rank, int size) {
  ensureMpi();
  MPI_Comm comm = groupCommunicator(store, rank, size);
  GroupComm group{"mpi", {}, std::nullopt, {}};
  try {
    group.comm = collplan::mpiComm(comm, optionalEnv("COLLPLAN_BUNDLE"));
  } catch (...) {
    MPI_Comm_free(&comm);
    throw;
  }
  MPI_Comm_free(&comm);  // collplan talks on its own duplicate
  return group;
}
#endif

}  // namespace

std::string chooseTransport() {
  if (const char *forced = optionalEnv("COLLPLAN_TORCH_TRANSPORT")) {
    const std::string transport = forced;
    if (transport != "cpu-shm" && transport != "mpi")
      throw std::runtime_error("COLLPLAN_TORCH_TRANSPORT=" + transport +
                               ": expected cpu-shm or mpi");
#ifndef COLLPLAN_TORCH_MPI
    if (transport == "mpi")
      throw std::runtime_error("COLLPLAN_TORCH_TRANSPORT=mpi: this build has no mpi backend "
                               "(CMake found no MPI)");
#endif
    return transport;
  }
#ifdef COLLPLAN_TORCH_MPI
  if (startedByMpiLauncher()) return "mpi";
#endif
  return "cpu-shm";
}

GroupComm openGroup(c10d::Store &store, int rank, int size) {
#ifdef COLLPLAN_TORCH_MPI
  if (chooseTransport() == "mpi") return openMpiGroup(store, rank, size);
#else
  chooseTransport();  // refuses COLLPLAN_TORCH_TRANSPORT=mpi, saying why
#endif
  GroupComm group{"cpu-shm", agreeOnJob(store, rank), std::nullopt, {}};
  group.world.emplace(openWorld(group.job, rank, size));
  group.comm = group.world->comm(rank);
  return group;
}

}  // namespace collplan::distributed
