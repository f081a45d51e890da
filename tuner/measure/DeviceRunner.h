// The runner of backends whose ranks run on devices (cuda): device buffers, device events.
#pragma once

#include "tuner/measure/Runner.h"

namespace collplan::measure {

/// Opens a DeviceJob of the backend for each run and times every rank's calls at once: per
/// size [poisoned output, one call, wrong elements counted on the host] when settings.check,
/// `warmup` calls, then `reps` times one call timed by device events from its enqueue to its
/// end on the slowest device.
class DeviceRunner final : public Runner {
public:
  using Runner::Runner;
  std::vector<SizeResult> run(const PlanSource &source, const BenchCase &c,
                              const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                              const ProgressFn &progress = {}) const override;
  /// NativeCollectives::check, then its checkJob on a job of `c.ranks` ranks opened for the
  /// purpose (RuntimeError where the backend cannot open its devices at all).
  void checkNative(const BenchCase &c) const override;
  /// The backend's own collectives on every rank of a job of their own, in one call per size;
  /// with settings.check, each size's first call is compared with the host reference and a
  /// difference throws std::runtime_error (the library was handed buffers it does not expect).
  std::vector<SizeResult> runNative(const BenchCase &c, const std::vector<SizePoint> &sizes,
                                    const LoopSettings &settings) const override;
  std::string timeMeaning() const override {
    return "each call's span on the slowest device (device events)";
  }
  /// Opens the devices of a job of `ranks` ranks once.
  void checkUsable(int ranks) const override;
};

/// The plans of `source` on every rank of `job`, as DeviceRunner::run times them: one RankTimes
/// for the whole job (its calls end together). Throws RuntimeError for a plan the devices cannot
/// run or a failure a kernel recorded.
RankTimes runDeviceLoop(DeviceJob &job, const PlanSource &source, const BenchCase &c,
                        const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                        const ProgressFn &progress = {});

}  // namespace collplan::measure
