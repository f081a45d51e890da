// Waiting on a shared flag: spin briefly, then yield, then sleep, so oversubscribed ranks progress.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

namespace collplan {

struct WaitPolicy {
  /// Busy-poll iterations (with a CPU pause) before yielding. 0 by default: on a machine with
  /// more runnable threads than cores (oversubscribed ranks, or other work) a rank that spins
  /// holds the core its peer needs; measured on the 2-core VM, even 16 pauses per wait doubled
  /// a small allreduce with 4 ranks, and 128 made N=2 9x slower under load. A yield costs a
  /// system call (~0.3 us) when the core is free, so yielding at once loses little elsewhere.
  int spins = 0;
  /// How long to keep yielding (sched_yield hands the core to a runnable peer at once, which is
  /// what oversubscribed ranks need) before sleeping; a sleep's wake-up costs tens of
  /// microseconds (timer slack), so only long waits (a peer still computing) sleep.
  std::chrono::microseconds yieldFor{2000};
  /// Longest single sleep; sleeps start at 1 us and double up to this.
  std::chrono::microseconds maxSleep{64};
  /// Give up (waitAtLeast returns false) after this long; 0 waits forever.
  std::chrono::milliseconds timeout{120000};
  /// Called about every `checkEvery` while a wait goes on (never before the first
  /// `checkEvery`): throws to end the wait early, e.g. when a peer process died (cpu-shm).
  /// Empty: nothing to check.
  std::function<void()> check;
  std::chrono::milliseconds checkEvery{100};
};

/// Waits until flag >= target (acquire ordering, so data written before the matching release
/// store is visible). Returns false if `policy.timeout` elapsed first; runs `policy.check`
/// (which may throw) every `policy.checkEvery` while it waits.
bool waitAtLeast(const std::atomic<uint64_t> &flag, uint64_t target, const WaitPolicy &policy);

/// The same spin, yield, sleep escalation for a loop that polls several conditions (a rank's
/// progress loop over its channels): call pause() after every pass that found nothing to do and
/// reset() after one that did.
class Backoff {
public:
  explicit Backoff(const WaitPolicy &policy) : policy_(policy) {}
  /// Waits a little (a CPU pause, a yield or a sleep, by how long nothing has moved); false once
  /// `policy.timeout` has passed since the last reset. Runs `policy.check` (which may throw)
  /// every `policy.checkEvery` of stillness.
  bool pause();
  void reset() { idle_ = 0; }
  /// How long nothing has moved, for error messages.
  std::chrono::microseconds idleFor() const;

private:
  const WaitPolicy &policy_;
  uint64_t idle_ = 0;  ///< pauses since the last reset
  std::chrono::steady_clock::time_point since_;
  std::chrono::steady_clock::duration nextCheck_{};  ///< stillness at which to run the check
  std::chrono::microseconds sleep_{1};
};

/// `policy`, polling `spins` times before it yields when `ranks` ranks that share this machine
/// fit its `cpus` CPUs and COLLPLAN_WAIT_SPINS does not say otherwise: a rank with a core of its
/// own finds its peer's flag within the polls and saves the yield's system call, while ranks
/// that outnumber the cores yield at once, so the peer holding the core they wait for runs.
/// Each transport passes the poll count measured for it.
WaitPolicy pollingWhenRanksFit(WaitPolicy policy, int ranks, size_t cpus, int spins);

/// `policy`, also running `check` while it waits: `check` first, then the checks the policy
/// already had (a transport adds its own to the caller's).
WaitPolicy alsoChecking(WaitPolicy policy, std::function<void()> check);

/// The default policy, overridden by COLLPLAN_TIMEOUT_S (seconds, 0 = forever),
/// COLLPLAN_WAIT_SPINS (polls before yielding) and COLLPLAN_WAIT_YIELD_US when set.
WaitPolicy defaultWaitPolicy();

}  // namespace collplan
