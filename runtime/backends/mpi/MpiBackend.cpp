// The mpi registry entry: every rank of a job is an MPI process (started by mpirun); a job is
// the processes of an MPI communicator.
#include "runtime/backends/Backend.h"
#include "runtime/backends/mpi/MpiError.h"
#include "runtime/backends/mpi/HybridTransport.h"
#include "runtime/backends/mpi/MpiAgreement.h"
#include "runtime/backends/mpi/MpiNative.h"
#include "runtime/backends/mpi/OwnedComm.h"
#include "runtime/backends/mpi/MpiQueues.h"

#include <cerrno>  // program_invocation_short_name
#include <cstdlib>
#include <stdexcept>

namespace collplan {
namespace {

using mpi::HybridTransport;
using mpi::OwnedComm;

/// This process's rank of an mpi job: its transport (a duplicate of the job's communicator,
/// with the node's shared memory), made when the job is opened and handed out once, and the
/// job's topology.
class MpiJob final : public Job {
public:
  MpiJob(MPI_Comm comm, int rank, const WaitPolicy &policy)
      : rank_(rank), setUp_(comm, "the mpi backend opening its job"),
        transport_(std::make_unique<HybridTransport>(comm, policy,
                                                     mpi::NodeSettings::fromEnvironment())),
        topology_(mpi::jobTopology(setUp_.get(), transport_->layout())) {}

  std::unique_ptr<Transport> transport(int rank, const WaitPolicy &) override {
    if (rank != rank_)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "this mpi world is rank " + std::to_string(rank_) +
                             " of its communicator; it has no communicator for rank " +
                             std::to_string(rank));
    if (!transport_)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "rank " + std::to_string(rank) +
                             " of this mpi world already had its communicator: create another "
                             "world (collplan_comm_create_mpi) for another one");
    return std::move(transport_);
  }

  std::optional<Topology> topology() const override { return topology_; }

  void agreeOnSetUp(const std::string &failure, ErrorCode code) override {
    mpi::agreeOnSetUp(setUp_.get(), {failure, code}, "creating the mpi communicator");
  }

private:
  int rank_;
  OwnedComm setUp_;  ///< for agreeOnSetUp and the topology, apart from the plan's messages
  std::unique_ptr<HybridTransport> transport_;
  Topology topology_;
};

/// The size and this process's rank of `comm`.
std::pair<int, int> shapeOf(MPI_Comm comm) {
  int ranks = 0, rank = 0;
  auto context = [] { return std::string("the mpi backend reading its communicator"); };
  mpi::checkMpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size", context);
  mpi::checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank", context);
  return {ranks, rank};
}

/// Whether a launcher (mpirun, mpiexec, srun) started this process: each leaves its process
/// manager's variables in the environment, and a process run alone has none. Read once, before
/// MPI_Init (a singleton's MPI_Init may set some of them).
bool startedByALauncher() {
  static const bool started = [] {
    for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMI_FD", "PMIX_RANK",
                             "HYDRA_CONTROL_FD", "SLURM_PROCID"})
      if (std::getenv(name)) return true;
    return false;
  }();
  return started;
}

/// Refuses a tool's measurement in a process no launcher started: alone in MPI_COMM_WORLD, it
/// would measure a one-rank job without a word.
void requireLauncher() {
  if (startedByALauncher()) return;
  throw RuntimeError(ErrorCode::InvalidArgument,
                     std::string("the mpi backend runs on the processes mpirun starts, and this "
                                 "process was not started by mpirun (nor mpiexec or srun): run "
                                 "mpirun -np N ") +
                         program_invocation_short_name + " --backend mpi ...");
}

/// Initialises MPI for a process that did not (plan-bench under mpirun), finalising it at exit.
void initialiseMpi() {
  startedByALauncher();  // latch the launcher's environment before MPI_Init can change it
  if (mpi::mpiActive()) return;
  int provided = 0;
  mpi::checkMpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided),
                "MPI_Init_thread", [] { return std::string("the mpi backend"); });
  std::atexit([] {
    if (mpi::mpiActive()) MPI_Finalize();
  });
}

class Mpi final : public Backend {
public:
  std::string_view name() const override { return "mpi"; }
  std::string_view summary() const override {
    return "every rank an MPI process (mpirun); ranks on one node exchange through shared "
           "memory, the others through MPI point-to-point messages";
  }
  bool oneRankPerProcess() const override { return true; }
  bool startedByItsLauncher() const override { return true; }
  /// A launch runs on processes mpirun already started: a barrier-like exchange of results.
  double launchOverheadUs() const override { return 100; }

  std::unique_ptr<Job> openJob(const JobOptions &o) const override {
    if (!mpi::mpiActive())
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "the mpi backend needs MPI initialised: call MPI_Init first (and run "
                         "the program under mpirun)");
    if (!o.job.empty())
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "shm_job is only meaningful for cpu-shm; set it to NULL");
    const MPI_Comm comm = o.native ? *static_cast<const MPI_Comm *>(o.native) : MPI_COMM_WORLD;
    const auto [ranks, rank] = shapeOf(comm);
    if (o.ranks != ranks || o.rank != rank)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "the mpi backend was asked for rank " + std::to_string(o.rank) + " of " +
                             std::to_string(o.ranks) + " but this process is rank " +
                             std::to_string(rank) + " of the " + std::to_string(ranks) +
                             " processes of its MPI communicator");
    return std::make_unique<MpiJob>(comm, rank, o.policy);
  }

  std::optional<Topology> launchTopology() const override {
    initialiseMpi();
    requireLauncher();
    const OwnedComm comm(MPI_COMM_WORLD, "the mpi backend finding its nodes");
    mpi::NodeSplit split = mpi::splitByNode(comm.get(), mpi::NodeSettings::fromEnvironment());
    MPI_Comm_free(&split.node);
    return mpi::jobTopology(comm.get(), split.layout);
  }

  const NativeCollectives *nativeCollectives() const override {
    return &mpi::mpiNativeCollectives();
  }

  bool reportsLaunches() const override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return true;  // at exit: nothing is left to share the output with
    initialiseMpi();
    return shapeOf(MPI_COMM_WORLD).second == 0;
  }

  /// Runs `body` on this process's rank of MPI_COMM_WORLD (every process of the mpirun job
  /// calls launch alike) and returns every rank's result, on every rank.
  std::vector<std::string> launch(int ranks, const RankBody &body) const override {
    initialiseMpi();
    requireLauncher();
    const auto [size, rank] = shapeOf(MPI_COMM_WORLD);
    if (size != ranks)
      throw std::runtime_error("mpi: asked for " + std::to_string(ranks) + " ranks but mpirun " +
                               "started " + std::to_string(size) + " processes (mpirun -np " +
                               std::to_string(ranks) + ")");
    std::string result;
    try {
      RankSession session(std::make_unique<HybridTransport>(MPI_COMM_WORLD, defaultWaitPolicy(),
                                                            mpi::NodeSettings::fromEnvironment()),
                          streamingCopyMinBytesFromEnv());
      result = "K" + body(session);
    } catch (const std::exception &e) {
      result = "Erank " + std::to_string(rank) + ": " + e.what();
    }
    std::vector<std::string> results;
    {
      // On a duplicate of MPI_COMM_WORLD, so no message of the program's can interfere.
      const OwnedComm comm(MPI_COMM_WORLD, "the mpi backend collecting the ranks' results");
      results = mpi::allGatherText(comm.get(), result);
    }
    for (const std::string &r : results)
      if (r.empty() || r[0] != 'K') throw std::runtime_error("mpi: " + r.substr(1));
    for (std::string &r : results) r.erase(0, 1);
    return results;
  }
};

}  // namespace

const Backend &mpiBackend() {
  static const Mpi backend;
  return backend;
}

}  // namespace collplan
