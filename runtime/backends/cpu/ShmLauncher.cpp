// collplan-shm-launch: starts the N processes of a cpu-shm job and reports how they ended.
#include "runtime/backends/cpu/CoreBinding.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

int usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s -n RANKS [--job NAME] [--] PROGRAM [ARGS...]\n"
               "Starts RANKS processes of PROGRAM with COLLPLAN_BACKEND=cpu-shm, COLLPLAN_RANKS,\n"
               "COLLPLAN_RANK and COLLPLAN_SHM_JOB set (read them with collplan_config_from_env).\n"
               "Exits 0 when every rank exits 0; stops the others when one fails; removes the\n"
               "job's /dev/shm/collplan-NAME* segments afterwards.\n",
               argv0);
  return 2;
}

/// Removes segments a crashed rank may have left behind.
void removeSegments(const std::string &job) {
  const std::string prefix = "collplan-" + job;
  DIR *dir = opendir("/dev/shm");
  if (!dir) return;
  while (dirent *e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name == prefix || name.rfind(prefix + "-r", 0) == 0) shm_unlink(("/" + name).c_str());
  }
  closedir(dir);
}

}  // namespace

namespace {

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

}  // namespace

using namespace collplan;

int main(int argc, char **argv) {
  int ranks = 0;
  std::string job = "job" + std::to_string(getpid());
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
      job = argv[++i];
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
  const std::vector<int> cpus = allowedCpus();

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
      setenv("COLLPLAN_BACKEND", "cpu-shm", 1);
      setenv("COLLPLAN_RANKS", std::to_string(ranks).c_str(), 1);
      setenv("COLLPLAN_RANK", std::to_string(r).c_str(), 1);
      setenv("COLLPLAN_SHM_JOB", job.c_str(), 1);
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
    --running;
    int rank = 0;
    while (rank < ranks && children[size_t(rank)] != pid) ++rank;
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
  removeSegments(job);
  return gStopSignal ? 128 + gStopSignal : result;
}
