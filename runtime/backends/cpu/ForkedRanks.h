// ForkedRanks: the rank processes a tool forks for one cpu-shm launch, their reports, and how
// they are stopped: on a failure, on the tool's SIGTERM/SIGINT/SIGHUP, and when stuck.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace collplan {

/// How long ranks asked to stop (SIGTERM, then SIGCONT for a stopped one) may take before they
/// are killed outright (SIGKILL).
inline constexpr std::chrono::seconds kStopGrace{3};

/// Asks process `pid` to stop: SIGTERM, and SIGCONT, since a stopped process (SIGSTOP, a
/// debugger) acts on SIGTERM only once it runs again. Async-signal-safe.
void askToStop(pid_t pid);

/// While it lives, SIGTERM, SIGINT and SIGHUP no longer end this process: they are recorded,
/// and the ranks added here are asked to stop. The one launching them then reaps them, removes
/// its segments and calls raiseAgain(), so the process ends by the signal as before but leaves
/// nothing in /dev/shm. One at a time per process.
class StopSignals {
public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals &) = delete;
  StopSignals &operator=(const StopSignals &) = delete;

  /// Counts `pid` among the ranks a signal stops (up to 4096).
  void add(pid_t pid);
  /// The signal received, or 0.
  int received() const;
  /// Restores the previous handlers and raises the signal received, if any.
  void raiseAgain();
  /// In a process forked while this lives: restores the previous handlers, so the signals act
  /// on it as they did before (a rank must die by the SIGTERM that stops it).
  void restoreInChild() const;
};

/// Reads every rank's pipe `fds[r]` until end of file, then reaps the ranks. When a rank's
/// report does not start with 'K' (it failed) or `signals` received one, asks the others to
/// stop and kills those still running kStopGrace later, so neither a failure nor a stopped
/// rank leaves the caller waiting. `firstFailure(rank, report)` runs for the first rank that
/// failed, before the others are asked to stop. Returns each rank's report.
std::vector<std::string> collectRanks(
    const std::vector<pid_t> &pids, std::vector<int> &fds, const StopSignals &signals,
    const std::function<void(size_t rank, const std::string &report)> &firstFailure = {});

}  // namespace collplan
