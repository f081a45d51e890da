// One checked call of a plan through a LaunchGroup, on any DeviceTarget: the GPU's memory or the
// host emulation's, for the tests of the plan kernel.
#pragma once

#include "runtime/backends/cuda/LaunchGroup.h"
#include "tuner/bench/CheckData.h"

#include <cstdint>
#include <functional>

namespace collplan::cuda::test {

/// How the check reads results back: a device-to-host copy, and a wait for the launch.
struct Readback {
  std::function<void(void *dst, const void *src, size_t bytes)> copyOut;
  std::function<void()> synchronize;
};

/// Runs `plan` once for `c` on every rank of `group` (buffers from `target`, the input filled
/// and the output poisoned by the bench's check data; in place when asked) and returns the
/// wrong elements over ranks. Throws what the launch recorded.
uint64_t runPlanChecked(DeviceTarget &target, LaunchGroup &group, const Readback &readback,
                        const Plan &plan, const bench::BenchCase &c, size_t count, bool inPlace);

}  // namespace collplan::cuda::test
