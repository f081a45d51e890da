// measureShm: the rank loop in forked processes over the cpu-shm transport; results come back
// through one pipe per rank.
#include "runtime/backends/cpu/ShmBackend.h"

#include "tuner/bench/Backends.h"
#include "tuner/bench/RankPlacement.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <sys/mman.h>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace collplan::bench {
namespace {


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

/// Wire format: 'K' then per size {u64 wrong, u64 reps, reps × f64 seconds}; or 'E' + message.
std::string encodeTimes(const RankTimes &t) {
  std::string s = "K";
  auto put = [&](const void *p, size_t n) { s.append(static_cast<const char *>(p), n); };
  for (size_t i = 0; i < t.seconds.size(); ++i) {
    const uint64_t reps = t.seconds[i].size();
    put(&t.wrong[i], 8);
    put(&reps, 8);
    put(t.seconds[i].data(), reps * 8);
  }
  return s;
}

RankTimes decodeTimes(const std::string &s, size_t sizes) {
  RankTimes t;
  size_t pos = 1;
  auto get = [&](void *p, size_t n) {
    if (pos + n > s.size()) throw std::runtime_error("cpu-shm: a rank's results were cut short");
    std::memcpy(p, s.data() + pos, n);
    pos += n;
  };
  for (size_t i = 0; i < sizes; ++i) {
    uint64_t wrong = 0, reps = 0;
    get(&wrong, 8);
    get(&reps, 8);
    std::vector<double> seconds(reps);
    get(seconds.data(), reps * 8);
    t.wrong.push_back(wrong);
    t.seconds.push_back(std::move(seconds));
  }
  return t;
}

[[noreturn]] void runChild(int fd, const std::string &job, int rank, const PlanSource &source,
                           const BenchCase &c, const std::vector<SizePoint> &sizes,
                           const LoopSettings &settings, const ProgressFn &progress,
                           const RankPlacement &placement) {
  std::string message;
  int code = 0;
  try {
    ShmTransport transport(job, rank, c.ranks, placement.place(rank, c.ranks));
    message = encodeTimes(runRankLoop(transport, source, c, sizes, settings, progress));
  } catch (const std::exception &e) {
    message = std::string("Erank ") + std::to_string(rank) + ": " + e.what();
    code = 1;
  }
  writeAll(fd, message.data(), message.size());
  ::close(fd);
  std::fflush(stderr);
  ::_exit(code);
}

/// Removes what stopped ranks left in /dev/shm (the names of job `job`); a clean run leaves none.
void removeLeftoverSegments(const std::string &job) {
  DIR *dir = ::opendir("/dev/shm");
  if (!dir) return;
  const std::string prefix = "collplan-" + job;
  std::vector<std::string> names;
  while (const dirent *e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name == prefix || name.compare(0, prefix.size() + 1, prefix + "-") == 0)
      names.push_back(name);
  }
  ::closedir(dir);
  for (const std::string &name : names) ::shm_unlink(("/" + name).c_str());
}

}  // namespace

std::vector<SizeResult> measureShm(const PlanSource &source, const BenchCase &c,
                                   const std::vector<SizePoint> &sizes,
                                   const LoopSettings &settings, const ProgressFn &progress) {
  const std::string job = "plan-bench-" + std::to_string(::getpid());
  const size_t n = size_t(c.ranks);
  std::vector<pid_t> pids(n, -1);
  std::vector<int> fds(n, -1);
  const RankPlacement placement;  // before the ranks bind: the CPUs this process may use
  std::fflush(stdout);
  std::fflush(stderr);
  for (size_t r = 0; r < n; ++r) {
    int p[2];
    if (::pipe(p) != 0) throw std::runtime_error(std::string("cpu-shm: pipe: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("cpu-shm: fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::close(p[0]);
      for (size_t k = 0; k < r; ++k) ::close(fds[k]);
      runChild(p[1], job, int(r), source, c, sizes, settings, progress, placement);
    }
    ::close(p[1]);
    pids[r] = pid;
    fds[r] = p[0];
  }

  // Read every pipe until EOF; when a rank fails, stop the others (they would wait for it until
  // the runtime's timeout).
  std::vector<std::string> data(n);
  std::string failure;
  size_t open = n;
  while (open > 0) {
    std::vector<pollfd> polls;
    std::vector<size_t> owner;
    for (size_t r = 0; r < n; ++r)
      if (fds[r] >= 0) {
        polls.push_back({fds[r], POLLIN, 0});
        owner.push_back(r);
      }
    if (::poll(polls.data(), polls.size(), -1) < 0 && errno != EINTR) break;
    for (size_t k = 0; k < polls.size(); ++k) {
      if (!(polls[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const size_t r = owner[k];
      char buf[65536];
      const ssize_t got = ::read(fds[r], buf, sizeof buf);
      if (got > 0) {
        data[r].append(buf, size_t(got));
        continue;
      }
      if (got < 0 && errno == EINTR) continue;
      ::close(fds[r]);
      fds[r] = -1;
      --open;
      if ((data[r].empty() || data[r][0] != 'K') && failure.empty()) {
        failure = data[r].empty() ? "rank " + std::to_string(r) + " exited without a result"
                                  : data[r].substr(1);
        for (size_t q = 0; q < n; ++q)
          if (fds[q] >= 0) ::kill(pids[q], SIGTERM);
      }
    }
  }
  for (size_t r = 0; r < n; ++r) {
    int status = 0;
    ::waitpid(pids[r], &status, 0);
  }
  if (!failure.empty()) {
    removeLeftoverSegments(job);
    throw std::runtime_error("cpu-shm: " + failure);
  }
  std::vector<RankTimes> times;
  for (size_t r = 0; r < n; ++r) times.push_back(decodeTimes(data[r], sizes.size()));
  return combineRanks(times);
}

}  // namespace collplan::bench
