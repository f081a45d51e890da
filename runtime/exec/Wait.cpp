// The spin-yield-sleep wait on an acquire flag, and the same escalation for polling loops.
#include "runtime/exec/Wait.h"

#include "runtime/exec/EnvSettings.h"
#include "runtime/exec/RuntimeError.h"

#include <algorithm>
#include <cstdlib>
#include <sched.h>
#include <string>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define COLLPLAN_CPU_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define COLLPLAN_CPU_PAUSE() asm volatile("yield")
#else
#define COLLPLAN_CPU_PAUSE() ((void)0)
#endif

namespace collplan {

bool waitAtLeast(const std::atomic<uint64_t> &flag, uint64_t target, const WaitPolicy &policy) {
  for (int i = 0; i < policy.spins; ++i) {
    if (flag.load(std::memory_order_acquire) >= target) return true;
    COLLPLAN_CPU_PAUSE();
  }
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      if (flag.load(std::memory_order_acquire) >= target) return true;
      sched_yield();
    }
    const auto yielded = std::chrono::steady_clock::now() - start;
    if (yielded > policy.yieldFor) break;
    if (policy.timeout.count() > 0 && yielded > policy.timeout)
      return flag.load(std::memory_order_acquire) >= target;
  }
  std::chrono::microseconds sleep{1};
  auto nextCheck = start + policy.checkEvery;
  while (flag.load(std::memory_order_acquire) < target) {
    std::this_thread::sleep_for(sleep);
    if (sleep < policy.maxSleep) sleep *= 2;
    const auto now = std::chrono::steady_clock::now();
    if (policy.timeout.count() > 0 && now - start > policy.timeout)
      return flag.load(std::memory_order_acquire) >= target;
    if (policy.check && now >= nextCheck) {
      nextCheck = now + policy.checkEvery;
      policy.check();
    }
  }
  return true;
}

bool Backoff::pause() {
  if (idle_ == 0) {
    since_ = std::chrono::steady_clock::now();
    sleep_ = std::chrono::microseconds(1);
    nextCheck_ = policy_.checkEvery;
  }
  ++idle_;
  if (idle_ <= uint64_t(policy_.spins)) {
    COLLPLAN_CPU_PAUSE();
    return true;
  }
  // Look at the clock only every 16 pauses while yielding: a yield costs ~0.3 us.
  if ((idle_ & 15) != 0 && sleep_.count() == 1) {
    sched_yield();
    return true;
  }
  const auto elapsed = std::chrono::steady_clock::now() - since_;
  if (policy_.timeout.count() > 0 && elapsed > policy_.timeout) return false;
  if (policy_.check && elapsed >= nextCheck_) {
    nextCheck_ = elapsed + policy_.checkEvery;
    policy_.check();
  }
  if (elapsed <= policy_.yieldFor) {
    sched_yield();
    return true;
  }
  std::this_thread::sleep_for(sleep_);
  if (sleep_ < policy_.maxSleep) sleep_ *= 2;
  return true;
}

std::chrono::microseconds Backoff::idleFor() const {
  if (idle_ == 0) return std::chrono::microseconds(0);
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               since_);
}

WaitPolicy defaultWaitPolicy() {
  WaitPolicy policy;
  policy.timeout = std::chrono::milliseconds(timeoutMillisFromEnv(policy.timeout.count()));
  policy.spins = int(unsignedFromEnv("COLLPLAN_WAIT_SPINS", uint64_t(policy.spins),
                                     "a number of polls from 0 to 1000000", 1000000));
  policy.yieldFor = std::chrono::microseconds(
      unsignedFromEnv("COLLPLAN_WAIT_YIELD_US", uint64_t(policy.yieldFor.count()),
                      "a number of microseconds from 0 to 1000000", 1000000));
  return policy;
}

WaitPolicy pollingWhenRanksFit(WaitPolicy policy, int ranks, size_t cpus, int spins) {
  if (ranks >= 1 && size_t(ranks) <= cpus && !std::getenv("COLLPLAN_WAIT_SPINS"))
    policy.spins = std::max(policy.spins, spins);
  return policy;
}

WaitPolicy alsoChecking(WaitPolicy policy, std::function<void()> check) {
  policy.check = [inner = std::move(policy.check), check = std::move(check)] {
    check();
    if (inner) inner();
  };
  return policy;
}

}  // namespace collplan
