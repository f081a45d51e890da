// The measurement loop of a backend that runs on devices (DeviceJob): check, warm up, time.
#pragma once

#include "runtime/backends/Backend.h"
#include "tuner/bench/RankLoop.h"

#include <vector>

namespace collplan::bench {

/// Runs every size on every rank of `job` at once, as runRankLoop does on each rank of a host
/// backend: [poisoned output, one call, wrong elements counted on the host], `warmup` calls,
/// then `reps` times one call timed by device events from its enqueue to its end on the
/// slowest device. The result is one RankTimes for the whole job (its calls end together).
/// Throws RuntimeError for a plan the devices cannot run or a failure a kernel recorded.
RankTimes runDeviceLoop(DeviceJob &job, const PlanSource &source, const BenchCase &c,
                        const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                        const ProgressFn &progress = {});

}  // namespace collplan::bench
