// Waiting on a shared flag: spin briefly, then yield, then sleep, so oversubscribed ranks progress.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace collplan {

struct WaitPolicy {
  /// Busy-poll iterations (with a CPU pause) before yielding: a few microseconds.
  int spins = 128;
  /// How long to keep yielding (sched_yield hands the core to a runnable peer at once, which is
  /// what oversubscribed ranks need) before sleeping.
  std::chrono::microseconds yieldFor{50};
  /// Longest single sleep; sleeps start at 1 us and double up to this.
  std::chrono::microseconds maxSleep{64};
  /// Give up (waitAtLeast returns false) after this long; 0 waits forever.
  std::chrono::milliseconds timeout{120000};
};

/// Waits until flag >= target (acquire ordering, so data written before the matching release
/// store is visible). Returns false if `policy.timeout` elapsed first.
bool waitAtLeast(const std::atomic<uint64_t> &flag, uint64_t target, const WaitPolicy &policy);

/// The default policy, with the timeout taken from COLLPLAN_TIMEOUT_S when set (0 = forever).
WaitPolicy defaultWaitPolicy();

}  // namespace collplan
