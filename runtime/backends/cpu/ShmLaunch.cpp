// The cpu-shm registry entry: a job's ranks are processes over POSIX shared memory; launch forks
// them and collects each rank's result through a pipe (ForkedRanks.h).
#include "runtime/backends/Backend.h"
#include "runtime/backends/cpu/ForkedRanks.h"
#include "runtime/backends/cpu/RankPlacement.h"
#include "runtime/backends/cpu/ShmBackend.h"
#include "runtime/backends/cpu/ShmControl.h"
#include "runtime/backends/cpu/ShmJobId.h"
#include "runtime/exec/RuntimeError.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace collplan {
namespace {

/// This process's rank of a cpu-shm job: its transport attaches when the job is opened (rank 0
/// creates the control segment, the others wait for it) and is handed out once.
class ShmJob final : public Job {
public:
  ShmJob(const JobOptions &o)
      : rank_(o.rank), transport_(std::make_unique<ShmTransport>(o.job, o.rank, o.ranks, o.policy)) {}

  std::unique_ptr<Transport> transport(int rank, const WaitPolicy &) override {
    if (rank != rank_)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "this cpu-shm world is rank " + std::to_string(rank_) +
                             " of its job; it has no communicator for rank " + std::to_string(rank));
    if (!transport_)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "rank " + std::to_string(rank) +
                             " of this cpu-shm job already had its communicator: a process "
                             "attaches to its job once");
    return std::move(transport_);
  }

private:
  int rank_;
  std::unique_ptr<Transport> transport_;
};

void writeAll(int fd, const void *data, size_t bytes) {
  const char *p = static_cast<const char *>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nothing left to tell
    p += n;
    bytes -= size_t(n);
  }
}

/// A forked rank: runs `body` on its session and writes 'K' + its result, or 'E' + the error.
[[noreturn]] void runChild(int fd, const ShmJobNames &job, int rank, int ranks,
                           const RankBody &body, const RankPlacement &placement) {
  std::string message;
  int code = 0;
  try {
    RankSession session(std::make_unique<ShmTransport>(job.job, rank, ranks,
                                                       placement.place(rank, ranks), job.nonce),
                        streamingCopyMinBytesFromEnv());
    message = "K" + body(session);
  } catch (const std::exception &e) {
    message = std::string("Erank ") + std::to_string(rank) + ": " + e.what();
    code = 1;
  }
  writeAll(fd, message.data(), message.size());
  ::close(fd);
  std::fflush(stderr);
  ::_exit(code);
}

/// In a forked rank: dies with the process that forked it (SIGKILL), so a launcher killed
/// outright does not leave its ranks waiting for peers that are gone.
void dieWithParent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);  // the parent died before the request took effect
}

class CpuShm final : public Backend {
public:
  std::string_view name() const override { return "cpu-shm"; }
  std::string_view summary() const override {
    return "every rank a process; message FIFOs and staging in POSIX shared memory, large "
           "values read across processes in one copy";
  }
  bool oneRankPerProcess() const override { return true; }
  double launchOverheadUs() const override { return 3000; }  // N processes forked and reaped
  WaitPolicy waitPolicyFor(int ranks) const override {
    return waitPolicyForRanksOfThisMachine(ranks);  // every process of a job is on this machine
  }

  std::unique_ptr<Job> openJob(const JobOptions &o) const override {
    if (o.rank < 0 || o.rank >= o.ranks)
      throw RuntimeError(ErrorCode::InvalidArgument, "cpu-shm needs this process's rank in [0, " +
                                                         std::to_string(o.ranks) + "), got " +
                                                         std::to_string(o.rank));
    if (o.job.empty())
      throw RuntimeError(ErrorCode::NullPointer,
                         "cpu-shm needs shm_job, the job name every process of the job passes");
    ShmTransport::checkJobName(o.job);
    return std::make_unique<ShmJob>(o);
  }

  std::vector<std::string> launch(int ranks, const RankBody &body) const override {
    // A job name of its own for every launch, unguessable (ShmJobId.h), and a nonce.
    const ShmJobNames job{defaultJobName("launch-"), newJobNonce()};
    const pid_t parent = ::getpid();
    const size_t n = size_t(ranks);
    std::vector<pid_t> pids(n, -1);
    std::vector<int> fds(n, -1);
    const RankPlacement placement;  // before the ranks bind: the CPUs this process may use
    StopSignals signals;  // SIGTERM/SIGINT/SIGHUP now stop the ranks; the segments go after
    std::fflush(stdout);
    std::fflush(stderr);
    std::string forkFailure;
    for (size_t r = 0; r < n && forkFailure.empty() && !signals.received(); ++r) {
      int p[2];
      if (::pipe(p) != 0) {
        forkFailure = std::string("pipe: ") + std::strerror(errno);
        break;
      }
      const pid_t pid = ::fork();
      if (pid < 0) {
        forkFailure = std::string("fork: ") + std::strerror(errno);
        ::close(p[0]);
        ::close(p[1]);
        break;
      }
      if (pid == 0) {
        signals.restoreInChild();
        dieWithParent(parent);
        ::close(p[0]);
        for (size_t k = 0; k < r; ++k) ::close(fds[k]);
        runChild(p[1], job, int(r), ranks, body, placement);
      }
      ::close(p[1]);
      pids[r] = pid;
      fds[r] = p[0];
      signals.add(pid);
    }
    pids.erase(std::find(pids.begin(), pids.end(), -1), pids.end());
    fds.resize(pids.size());
    if (!forkFailure.empty())
      for (pid_t pid : pids) askToStop(pid);
    // A rank that died without a word failed first: the ranks still waiting should name it.
    std::vector<std::string> data =
        collectRanks(pids, fds, signals, [&](size_t rank, const std::string &report) {
          if (report.empty()) markRankFailed(job, int(rank));
        });
    if (signals.received()) {
      removeJobSegments(job);
      signals.raiseAgain();  // ends the process as the signal would have
    }
    if (!forkFailure.empty()) {
      removeJobSegments(job);
      throw std::runtime_error("cpu-shm: " + forkFailure);
    }
    // The first rank that reported an error, else the first that gave no result (the ranks
    // stopped after a failure give none).
    std::string failure;
    for (size_t r = 0; r < n && failure.empty(); ++r)
      if (!data[r].empty() && data[r][0] == 'E') failure = data[r].substr(1);
    for (size_t r = 0; r < n && failure.empty(); ++r)
      if (data[r].empty() || data[r][0] != 'K')
        failure = "rank " + std::to_string(r) + " exited without a result";
    if (!failure.empty()) {
      removeJobSegments(job);
      throw std::runtime_error("cpu-shm: " + failure);
    }
    for (std::string &d : data) d.erase(0, 1);
    return data;
  }

};

}  // namespace

const Backend &cpuShmBackend() {
  static const CpuShm backend;
  return backend;
}

}  // namespace collplan
