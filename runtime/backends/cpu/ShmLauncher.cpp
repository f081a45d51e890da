// collplan-shm-launch: starts the N processes of a cpu-shm job and reports how they ended.
#include "runtime/backends/cpu/CoreBinding.h"
#include "runtime/backends/cpu/ShmBackend.h"
#include "runtime/backends/cpu/ShmControl.h"
#include "runtime/backends/cpu/ShmJobId.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
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
               "Starts RANKS processes of PROGRAM with COLLPLAN_BACKEND=cpu-shm, COLLPLAN_RANKS,\n"
               "COLLPLAN_RANK, COLLPLAN_SHM_JOB and COLLPLAN_SHM_NONCE set (read them with\n"
               "collplan_config_from_env). The job name defaults to job-<16 random hex digits>;\n"
               "a NAME a live job holds is refused. Exits 0 when every rank exits 0; stops the\n"
               "others when one fails; removes the job's /dev/shm segments afterwards, even when\n"
               "the launcher itself is killed (its ranks are killed with it).\n",
               argv0);
  return 2;
}

/// The signal that asked the launcher to stop (0: none), and the ranks to pass it on to.
volatile sig_atomic_t gStopSignal = 0;
pid_t *gChildren = nullptr;
volatile sig_atomic_t gChildCount = 0;

/// SIGTERM/SIGINT/SIGHUP: stop every rank, then let main() reap them and remove the segments
/// (a launcher killed by `timeout` or Ctrl-C must not leave ranks or /dev/shm objects behind).
void stopRanks(int signal) {
  gStopSignal = signal;
  for (int k = 0; k < gChildCount; ++k) kill(gChildren[k], SIGTERM);
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

/// In a forked rank: dies with the launcher (SIGKILL), even when it is killed outright.
void dieWithParent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the launcher died before the request took effect
}

}  // namespace

int main(int argc, char **argv) {
  int ranks = 0;
  ShmJobNames job;
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
      ranks = int(n);
    } else if (arg == "--job" && i + 1 < argc) {
      job.job = argv[++i];
    } else if (arg == "--") {
      ++i;
      break;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage(argv[0]);
    } else {
      break;
    }
  }
  if (ranks < 1 || i >= argc) return usage(argv[0]);
  BindMode bind = BindMode::Core;
  if (auto why = bindModeFromEnv(bind)) {
    std::fprintf(stderr, "collplan-shm-launch: %s\n", why->c_str());
    return 2;
  }
  try {
    if (job.job.empty()) job.job = defaultJobName("job-");
    ShmTransport::checkJobName(job.job);
    job.nonce = newJobNonce();
    // Refuse a name a live job holds; remove what a dead job of the name left.
    const std::string why = freeJobName(job.job);
    if (!why.empty()) {
      std::fprintf(stderr, "collplan-shm-launch: %s\n", why.c_str());
      return 1;
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "collplan-shm-launch: %s\n", e.what());
    return 2;
  }
  const std::vector<int> cpus = allowedCpus();

  pid_t watchdog = -1;
  const int watchdogPipe = startWatchdog(job, watchdog);
  const pid_t launcher = getpid();
  std::vector<pid_t> children;
  children.reserve(size_t(ranks));
  gChildren = children.data();
  struct sigaction action = {};
  action.sa_handler = stopRanks;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGTERM, SIGINT, SIGHUP}) sigaction(signal, &action, nullptr);
  for (int r = 0; r < ranks && !gStopSignal; ++r) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "collplan-shm-launch: fork failed: %s\n", std::strerror(errno));
      for (pid_t c : children) kill(c, SIGTERM);
      return 1;
    }
    if (pid == 0) {
      dieWithParent(launcher);
      setenv("COLLPLAN_BACKEND", "cpu-shm", 1);
      setenv("COLLPLAN_RANKS", std::to_string(ranks).c_str(), 1);
      setenv("COLLPLAN_RANK", std::to_string(r).c_str(), 1);
      setenv("COLLPLAN_SHM_JOB", job.job.c_str(), 1);
      setenv(kNonceVariable, nonceText(job.nonce).c_str(), 1);
      // Rank r on CPU r mod C (one core each when they fit, as mpirun binds); a rank that owns
      // its core polls a little before yielding (unless the user chose COLLPLAN_WAIT_SPINS).
      if (bindCallerToCpu(cpuForRank(bind, cpus, r, ranks)) && ranksOwnTheirCores(bind, cpus, ranks))
        setenv("COLLPLAN_WAIT_SPINS", std::to_string(kSpinsWhenBound).c_str(), 0);
      execvp(argv[i], argv + i);
      std::fprintf(stderr, "collplan-shm-launch: cannot run %s: %s\n", argv[i],
                   std::strerror(errno));
      _exit(127);
    }
    children.push_back(pid);
    gChildCount = sig_atomic_t(children.size());
  }
  if (gStopSignal) stopRanks(gStopSignal);

  int result = 0;
  size_t running = children.size();
  while (running > 0) {
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;
    int rank = 0;
    while (rank < ranks && (size_t(rank) >= children.size() || children[size_t(rank)] != pid))
      ++rank;
    if (rank == ranks) continue;  // the watchdog
    --running;
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok && result == 0 && !gStopSignal) {
      if (WIFSIGNALED(status))
        std::fprintf(stderr, "collplan-shm-launch: rank %d killed by signal %d\n", rank,
                     WTERMSIG(status));
      else
        std::fprintf(stderr, "collplan-shm-launch: rank %d exited with status %d\n", rank,
                     WEXITSTATUS(status));
      result = 1;
      for (pid_t c : children)
        if (c != pid) kill(c, SIGTERM);
    }
  }
  removeJobSegments(job);
  if (watchdogPipe >= 0) {
    const char done = 'd';
    if (write(watchdogPipe, &done, 1) != 1) {
    }
    close(watchdogPipe);
    while (waitpid(watchdog, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  return gStopSignal ? 128 + gStopSignal : result;
}
