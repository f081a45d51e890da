// collplan-shm-launch: starts the N processes of a cpu-shm job and reports how they ended.
#include "runtime/backends/cpu/CoreBinding.h"
#include "runtime/backends/cpu/ForkedRanks.h"
#include "runtime/backends/cpu/ShmBackend.h"
#include "runtime/backends/cpu/ShmControl.h"
#include "runtime/backends/cpu/ShmJobId.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace collplan;

namespace {

int usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s -n RANKS [--job NAME] [--] PROGRAM [ARGS...]\n"
               "       %s --reap\n"
               "Starts RANKS processes of PROGRAM with COLLPLAN_BACKEND=cpu-shm, COLLPLAN_RANKS,\n"
               "COLLPLAN_RANK, COLLPLAN_SHM_JOB and COLLPLAN_SHM_NONCE set (read them with\n"
               "collplan_config_from_env). The job name defaults to job-<16 random hex digits>;\n"
               "a NAME a live job holds is refused. Exits 0 when every rank exits 0; stops the\n"
               "others when one fails; removes the job's /dev/shm segments afterwards, even when\n"
               "the launcher itself is killed (its ranks are killed with it). Ranks that do not\n"
               "stop within 3 s of being asked are killed. Every start (and --reap alone) first\n"
               "removes what jobs of this user whose processes all died left in /dev/shm.\n",
               argv0, argv0);
  return 2;
}

/// Waits (up to 5 s) until no process the job's control segment records is alive.
void waitForRanksToDie(const ShmJobNames &job) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    bool alive = false;
    try {
      ShmSegment control = ShmSegment::open(job.control(), {kControlHeaderBytes, 0}, false);
      if (!control || headerOf(control).nonce != job.nonce) return;
      for (int r = 0; r < headerOf(control).ranks && !alive; ++r)
        alive = livenessOf(processOf(recordOf(control, r))) != Liveness::Dead;
    } catch (const std::exception &) {
      return;
    }
    if (!alive) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

/// Forks a watchdog that removes the job's segments if the launcher dies without doing so
/// (SIGKILL): it waits on a pipe only the launcher writes to; end of file without the launcher's
/// "done" byte means the launcher is gone (its ranks die with it, PR_SET_PDEATHSIG). Returns the
/// pipe's write end (-1 when no watchdog could be started) and sets `pid`.
int startWatchdog(const ShmJobNames &job, pid_t &pid) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return -1;
  std::fflush(stdout);
  std::fflush(stderr);
  pid = fork();
  if (pid < 0) {
    close(p[0]);
    close(p[1]);
    return -1;
  }
  if (pid == 0) {
    close(p[1]);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    const int null = open("/dev/null", O_RDWR);  // hold no terminal or pipe of the caller open
    for (int fd = 0; fd <= 2 && null >= 0; ++fd) dup2(null, fd);
    char byte = 0;
    ssize_t n;
    while ((n = read(p[0], &byte, 1)) < 0 && errno == EINTR) {
    }
    if (n != 1) {
      waitForRanksToDie(job);
      removeJobSegments(job);
    }
    _exit(0);
  }
  close(p[0]);
  return p[1];
}

/// --reap: removes what dead jobs of this user left in /dev/shm and says which.
int reapAndReport() {
  const std::vector<std::string> jobs = reapStaleJobs();
  std::printf("collplan-shm-launch: removed the segments of %zu dead job%s", jobs.size(),
              jobs.size() == 1 ? "" : "s");
  for (size_t k = 0; k < jobs.size(); ++k) std::printf("%s%s", k ? ", " : ": ", jobs[k].c_str());
  std::printf("\n");
  return 0;
}

/// In a forked rank: dies with the launcher (SIGKILL), even when it is killed outright.
void dieWithParent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the launcher died before the request took effect
}

/// Reports how rank `rank` ended when it failed.
void reportFailure(int rank, int status) {
  if (WIFSIGNALED(status))
    std::fprintf(stderr, "collplan-shm-launch: rank %d killed by signal %d\n", rank,
                 WTERMSIG(status));
  else
    std::fprintf(stderr, "collplan-shm-launch: rank %d exited with status %d\n", rank,
                 WEXITSTATUS(status));
}

/// Waits for every rank. When one fails, or the launcher is told to stop (SIGTERM, SIGINT,
/// SIGHUP: `signals`), asks the others to stop and kills (SIGKILL) those still running
/// kStopGrace later, so a stopped or stuck rank cannot keep the launcher waiting. Returns 1
/// when a rank failed, else 0.
int reapRanks(const std::vector<pid_t> &children, const StopSignals &signals,
              const ShmJobNames &job) {
  std::vector<bool> running(children.size(), true);
  size_t left = children.size();
  int result = 0;
  std::optional<std::chrono::steady_clock::time_point> killAt;
  while (left > 0) {
    if (!killAt && (signals.received() || result != 0))
      killAt = std::chrono::steady_clock::now() + kStopGrace;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, killAt ? WNOHANG : 0);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;
    if (pid == 0) {  // ranks still stopping
      if (std::chrono::steady_clock::now() >= *killAt)
        for (size_t r = 0; r < children.size(); ++r)
          if (running[r]) kill(children[r], SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    const auto it = std::find(children.begin(), children.end(), pid);
    if (it == children.end()) continue;  // the watchdog
    const size_t rank = size_t(it - children.begin());
    running[rank] = false;
    --left;
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok || result != 0 || signals.received()) continue;
    reportFailure(int(rank), status);
    result = 1;
    // Before the others stop (and some of them die by it): the rank that failed first, so
    // that those still waiting for it name it rather than a peer the launcher stopped.
    markRankFailed(job, int(rank));
    for (size_t r = 0; r < children.size(); ++r)
      if (running[r]) askToStop(children[r]);
  }
  return result;
}

/// The command line: -n RANKS, --job NAME, then the program and its arguments.
struct LaunchArgs {
  int ranks = 0;
  ShmJobNames job;
  int program = 0;  ///< argv index of the program
};

/// Parses the command line; returns an exit code when there is nothing to launch (usage,
/// a bad -n, --reap).
std::optional<int> parseArgs(int argc, char **argv, LaunchArgs &a) {
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-n" && i + 1 < argc) {
      char *end = nullptr;
      const long n = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || n < 1 || n > 4096) {
        std::fprintf(stderr, "collplan-shm-launch: -n must be a rank count >= 1, got \"%s\"\n",
                     argv[i]);
        return 2;
      }
      a.ranks = int(n);
    } else if (arg == "--job" && i + 1 < argc) {
      a.job.job = argv[++i];
    } else if (arg == "--reap" && argc == 2) {
      return reapAndReport();
    } else if (arg == "--") {
      ++i;
      break;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage(argv[0]);
    } else {
      break;
    }
  }
  if (a.ranks < 1 || i >= argc) return usage(argv[0]);
  a.program = i;
  return std::nullopt;
}

/// Names the job (a fresh nonce; a name a live job holds is refused, and what dead jobs left
/// is removed); returns an exit code on failure.
std::optional<int> claimJob(ShmJobNames &job) {
  try {
    reapStaleJobs();  // what jobs whose processes all died left behind, whatever their names
    if (job.job.empty()) job.job = defaultJobName("job-");
    ShmTransport::checkJobName(job.job);
    job.nonce = newJobNonce();
    const std::string why = freeJobName(job.job);
    if (!why.empty()) {
      std::fprintf(stderr, "collplan-shm-launch: %s\n", why.c_str());
      return 1;
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "collplan-shm-launch: %s\n", e.what());
    return 2;
  }
  return std::nullopt;
}

/// In the forked child of rank `r`: its environment and core, then the program. Never returns.
[[noreturn]] void execRank(const LaunchArgs &a, int r, char **argv, BindMode bind,
                           const std::vector<int> &cpus) {
  setenv("COLLPLAN_BACKEND", "cpu-shm", 1);
  setenv("COLLPLAN_RANKS", std::to_string(a.ranks).c_str(), 1);
  setenv("COLLPLAN_RANK", std::to_string(r).c_str(), 1);
  setenv("COLLPLAN_SHM_JOB", a.job.job.c_str(), 1);
  setenv(kNonceVariable, nonceText(a.job.nonce).c_str(), 1);
  // Rank r on CPU r mod C (one core each when they fit, as mpirun binds); a rank that owns
  // its core polls a little before yielding (unless the user chose COLLPLAN_WAIT_SPINS).
  if (bindCallerToCpu(cpuForRank(bind, cpus, r, a.ranks)) &&
      ranksOwnTheirCores(bind, cpus, a.ranks))
    setenv("COLLPLAN_WAIT_SPINS", std::to_string(kSpinsWhenBound).c_str(), 0);
  execvp(argv[a.program], argv + a.program);
  std::fprintf(stderr, "collplan-shm-launch: cannot run %s: %s\n", argv[a.program],
               std::strerror(errno));
  _exit(127);
}

/// Tells the watchdog the job ended and gives it a moment to exit; one that does not
/// (stopped) is left to init rather than waited for.
void endWatchdog(int pipe, pid_t watchdog) {
  if (pipe < 0) return;
  const char done = 'd';
  if (write(pipe, &done, 1) != 1) {
  }
  close(pipe);
  for (int i = 0; i < 100 && waitpid(watchdog, nullptr, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace

int main(int argc, char **argv) {
  LaunchArgs a;
  if (const std::optional<int> exit = parseArgs(argc, argv, a)) return *exit;
  BindMode bind = BindMode::Core;
  if (auto why = bindModeFromEnv(bind)) {
    std::fprintf(stderr, "collplan-shm-launch: %s\n", why->c_str());
    return 2;
  }
  if (const std::optional<int> exit = claimJob(a.job)) return *exit;
  const std::vector<int> cpus = allowedCpus();

  pid_t watchdog = -1;
  const int watchdogPipe = startWatchdog(a.job, watchdog);
  const pid_t launcher = getpid();
  std::vector<pid_t> children;
  children.reserve(size_t(a.ranks));
  StopSignals signals;  // SIGTERM/SIGINT/SIGHUP stop the ranks; segments go once they are reaped
  for (int r = 0; r < a.ranks && !signals.received(); ++r) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "collplan-shm-launch: fork failed: %s\n", std::strerror(errno));
      for (pid_t c : children) askToStop(c);
      reapRanks(children, signals, a.job);
      removeJobSegments(a.job);
      return 1;
    }
    if (pid == 0) {
      signals.restoreInChild();  // exec resets caught signals too; a rank that fails to exec
      dieWithParent(launcher);
      execRank(a, r, argv, bind, cpus);
    }
    children.push_back(pid);
    signals.add(pid);
  }
  const int result = reapRanks(children, signals, a.job);
  removeJobSegments(a.job);
  endWatchdog(watchdogPipe, watchdog);
  return signals.received() ? 128 + signals.received() : result;
}
