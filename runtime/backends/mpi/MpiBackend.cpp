// The mpi registry entry: every rank of a job is an MPI process (started by mpirun); a job is
// the processes of an MPI communicator.
#include "runtime/backends/Backend.h"
#include "runtime/backends/mpi/MpiError.h"
#include "runtime/backends/mpi/MpiQueues.h"
#include "runtime/backends/mpi/MpiTransport.h"

#include <cstdlib>
#include <stdexcept>

namespace collplan {
namespace {

using mpi::MpiTransport;

/// This process's rank of an mpi job: its transport (a duplicate of the job's communicator),
/// made when the job is opened and handed out once.
class MpiJob final : public Job {
public:
  MpiJob(MPI_Comm comm, int rank, const WaitPolicy &policy)
      : rank_(rank), transport_(std::make_unique<MpiTransport>(comm, policy)) {}

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

private:
  int rank_;
  std::unique_ptr<Transport> transport_;
};

/// The size and this process's rank of `comm`.
std::pair<int, int> shapeOf(MPI_Comm comm) {
  int ranks = 0, rank = 0;
  auto context = [] { return std::string("the mpi backend reading its communicator"); };
  mpi::checkMpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size", context);
  mpi::checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank", context);
  return {ranks, rank};
}

/// Initialises MPI for a process that did not (plan-bench under mpirun), finalising it at exit.
void initialiseMpi() {
  if (mpi::mpiActive()) return;
  int provided = 0;
  mpi::checkMpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided),
                "MPI_Init_thread", [] { return std::string("the mpi backend"); });
  std::atexit([] {
    if (mpi::mpiActive()) MPI_Finalize();
  });
}

/// Every rank's `mine`, in rank order, on every rank of MPI_COMM_WORLD (exchanged on a
/// duplicate of it, so no message of the program's can interfere).
std::vector<std::string> allGather(const std::string &mine) {
  auto context = [] { return std::string("the mpi backend collecting the ranks' results"); };
  MPI_Comm comm = MPI_COMM_NULL;
  mpi::checkMpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup", context);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  struct Free {
    MPI_Comm &comm;
    ~Free() { MPI_Comm_free(&comm); }
  } freeAtEnd{comm};
  const int ranks = shapeOf(comm).first;
  std::vector<int> lengths(static_cast<size_t>(ranks)), offsets(static_cast<size_t>(ranks));
  int length = int(mine.size());
  mpi::checkMpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm),
                "MPI_Allgather", context);
  int total = 0;
  for (int r = 0; r < ranks; ++r) offsets[size_t(r)] = std::exchange(total, total + lengths[size_t(r)]);
  std::string all(size_t(total), '\0');
  mpi::checkMpi(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(),
                               offsets.data(), MPI_CHAR, comm),
                "MPI_Allgatherv", context);
  std::vector<std::string> out;
  for (int r = 0; r < ranks; ++r)
    out.push_back(all.substr(size_t(offsets[size_t(r)]), size_t(lengths[size_t(r)])));
  return out;
}

class Mpi final : public Backend {
public:
  std::string_view name() const override { return "mpi"; }
  std::string_view summary() const override {
    return "every rank an MPI process (mpirun); transfers are MPI point-to-point messages on a "
           "duplicate of the job's communicator";
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

  bool reportsLaunches() const override {
    return !mpi::mpiActive() || shapeOf(MPI_COMM_WORLD).second == 0;
  }

  /// Runs `body` on this process's rank of MPI_COMM_WORLD (every process of the mpirun job
  /// calls launch alike) and returns every rank's result, on every rank.
  std::vector<std::string> launch(int ranks, const RankBody &body) const override {
    initialiseMpi();
    const auto [size, rank] = shapeOf(MPI_COMM_WORLD);
    if (size != ranks)
      throw std::runtime_error("mpi: asked for " + std::to_string(ranks) + " ranks but mpirun " +
                               "started " + std::to_string(size) + " processes (mpirun -np " +
                               std::to_string(ranks) + ")");
    std::string result;
    try {
      RankSession session(std::make_unique<MpiTransport>(MPI_COMM_WORLD, defaultWaitPolicy()),
                          streamingCopyMinBytesFromEnv());
      result = "K" + body(session);
    } catch (const std::exception &e) {
      result = "Erank " + std::to_string(rank) + ": " + e.what();
    }
    std::vector<std::string> results = allGather(result);
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
