// The runner of backends whose ranks are host threads or processes (cpu-threads, cpu-shm, mpi).
#pragma once

#include "tuner/measure/Runner.h"

namespace collplan::measure {

/// Runs the rank loop on every rank Backend::launch starts (threads, forked processes, or the
/// processes of an mpirun job), each on its RankSession, and combines the times the ranks send
/// back: per size [poisoned output, barrier, one call, #wrong counted], `warmup` calls, then
/// `reps` times {barrier (the runtime's dissemination plan); time one call}.
class HostRanksRunner final : public Runner {
public:
  using Runner::Runner;
  std::vector<SizeResult> run(const PlanSource &source, const BenchCase &c,
                              const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                              const ProgressFn &progress = {}) const override;
  /// The backend's NativeCollectives::check.
  void checkNative(const BenchCase &c) const override;
  /// The same loop with NativeCollectives::run in place of the plans (unchecked: the reference).
  std::vector<SizeResult> runNative(const BenchCase &c, const std::vector<SizePoint> &sizes,
                                    const LoopSettings &settings) const override;
  std::string timeMeaning() const override { return "the slowest rank"; }
};

}  // namespace collplan::measure
