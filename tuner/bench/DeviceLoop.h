// The measurement loop of a backend that runs on devices (DeviceJob): check, warm up, time.
#pragma once

#include "runtime/backends/Backend.h"
#include "tuner/bench/RankLoop.h"

#include <functional>
#include <memory>
#include <vector>

namespace collplan::bench {

/// Every rank's input and output in device memory, sized for the largest size of a sweep, the
/// input filled with the check pattern (fillInput); released with this object.
class DeviceSweepBuffers {
public:
  DeviceSweepBuffers(DeviceJob &job, const BenchCase &c, const std::vector<SizePoint> &sizes);
  ~DeviceSweepBuffers();
  DeviceSweepBuffers(const DeviceSweepBuffers &) = delete;
  DeviceSweepBuffers &operator=(const DeviceSweepBuffers &) = delete;

  /// Every rank's call of `size` on these buffers (calls[r] is rank r's).
  std::vector<CallBuffers> calls(const SizePoint &size) const;

private:
  void releaseAll();

  DeviceJob &job_;
  BenchCase case_;
  std::vector<std::pair<void *, void *>> buffers_;  ///< per rank: input, output
};

/// Enqueues one call of `size` on every rank of the job (calls[r] is rank r's), without waiting.
using DeviceCaller =
    std::function<void(const SizePoint &size, const std::vector<CallBuffers> &calls)>;

/// Runs every size on every rank of `job` at once, as runRankLoop does on each rank of a host
/// backend: [poisoned output, one call, wrong elements counted on the host] when
/// settings.check, `warmup` calls, then `reps` times one call timed by device events from its
/// enqueue to its end on the slowest device. The result is one RankTimes for the whole job (its
/// calls end together). Throws what `enqueue` and the job throw.
RankTimes runDeviceSweep(DeviceJob &job, const DeviceSweepBuffers &buffers, const BenchCase &c,
                         const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                         const ProgressFn &progress, const DeviceCaller &enqueue);

/// runDeviceSweep of the plans of `source`. Throws RuntimeError for a plan the devices cannot
/// run or a failure a kernel recorded.
RankTimes runDeviceLoop(DeviceJob &job, const PlanSource &source, const BenchCase &c,
                        const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                        const ProgressFn &progress = {});

}  // namespace collplan::bench
