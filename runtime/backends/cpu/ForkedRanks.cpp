// ForkedRanks: stop signals during a launch, reading the ranks' reports, stopping and reaping.
#include "runtime/backends/cpu/ForkedRanks.h"

#include <cerrno>
#include <csignal>
#include <optional>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace collplan {
namespace {

constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP};
constexpr int kMaxStopped = 4096;

volatile sig_atomic_t gSignal = 0;
pid_t gPids[kMaxStopped];
volatile sig_atomic_t gCount = 0;
struct sigaction gPrevious[3];

void onStopSignal(int signal) {
  gSignal = signal;
  for (int k = 0; k < gCount; ++k) askToStop(gPids[k]);
}

using Clock = std::chrono::steady_clock;

/// Reads what rank `r` wrote; false once its pipe is closed (and closes it).
bool readReport(int &fd, std::string &report) {
  char buf[65536];
  const ssize_t got = ::read(fd, buf, sizeof buf);
  if (got > 0) {
    report.append(buf, size_t(got));
    return true;
  }
  if (got < 0 && errno == EINTR) return true;
  ::close(fd);
  fd = -1;
  return false;
}

/// Asks every rank not yet reaped to stop, once; then kills them after kStopGrace.
struct Stopper {
  const std::vector<pid_t> &pids;
  const std::vector<bool> &reaped;
  std::optional<Clock::time_point> killAt;

  void stop() {
    if (killAt) return;
    killAt = Clock::now() + kStopGrace;
    for (size_t r = 0; r < pids.size(); ++r)
      if (!reaped[r]) askToStop(pids[r]);
  }
  void killLate() const {
    if (!killAt || Clock::now() < *killAt) return;
    for (size_t r = 0; r < pids.size(); ++r)
      if (!reaped[r]) ::kill(pids[r], SIGKILL);
  }
};

/// Reaps whichever ranks have exited (without waiting); how many are left.
size_t reapExited(const std::vector<pid_t> &pids, std::vector<bool> &reaped) {
  size_t left = 0;
  for (size_t r = 0; r < pids.size(); ++r) {
    if (reaped[r]) continue;
    int status = 0;
    const pid_t got = ::waitpid(pids[r], &status, WNOHANG);
    if (got == pids[r] || (got < 0 && errno == ECHILD)) reaped[r] = true;
    else ++left;
  }
  return left;
}

}  // namespace

void askToStop(pid_t pid) {
  ::kill(pid, SIGTERM);
  ::kill(pid, SIGCONT);
}

StopSignals::StopSignals() {
  gSignal = 0;
  gCount = 0;
  struct sigaction action = {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &action, &gPrevious[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &gPrevious[i], nullptr);
  gCount = 0;
}

void StopSignals::add(pid_t pid) {
  if (gCount < kMaxStopped) {
    gPids[gCount] = pid;
    gCount = gCount + 1;
  }
  if (gSignal) askToStop(pid);
}

int StopSignals::received() const { return gSignal; }

void StopSignals::restoreInChild() const {
  for (int i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &gPrevious[i], nullptr);
  gCount = 0;
}

void StopSignals::raiseAgain() {
  const int signal = gSignal;
  for (int i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &gPrevious[i], nullptr);
  gCount = 0;
  if (signal) ::raise(signal);
}

std::vector<std::string> collectRanks(
    const std::vector<pid_t> &pids, std::vector<int> &fds, const StopSignals &signals,
    const std::function<void(size_t rank, const std::string &report)> &firstFailure) {
  const size_t n = pids.size();
  std::vector<std::string> reports(n);
  std::vector<bool> reaped(n, false);
  Stopper stopper{pids, reaped, std::nullopt};
  for (size_t open = n; open > 0;) {
    if (signals.received()) stopper.stop();
    stopper.killLate();
    std::vector<pollfd> polls;
    std::vector<size_t> owner;
    for (size_t r = 0; r < n; ++r)
      if (fds[r] >= 0) {
        polls.push_back({fds[r], POLLIN, 0});
        owner.push_back(r);
      }
    if (::poll(polls.data(), polls.size(), stopper.killAt ? 10 : 100) < 0 && errno != EINTR)
      break;
    for (size_t k = 0; k < polls.size(); ++k) {
      const size_t r = owner[k];
      if (!(polls[k].revents & (POLLIN | POLLHUP | POLLERR)) || readReport(fds[r], reports[r]))
        continue;
      --open;
      if (!reports[r].empty() && reports[r][0] == 'K') continue;
      if (!stopper.killAt && firstFailure) firstFailure(r, reports[r]);
      stopper.stop();
    }
  }
  while (reapExited(pids, reaped) > 0) {
    if (signals.received()) stopper.stop();
    stopper.killLate();
    ::usleep(1000);
  }
  return reports;
}

}  // namespace collplan
