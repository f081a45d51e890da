// The runner of backends that simulate plans on a topology instead of running them (sim).
#pragma once

#include "tuner/measure/HostRanksRunner.h"

namespace collplan::measure {

/// Times each size's plan with Backend::simulateUs on one topology: an exact time, no data
/// moved, nothing checked. The plans' results are checked on cpu-threads instead.
class SimRunner final : public Runner {
public:
  SimRunner(const Backend &backend, const Topology &topology);
  std::vector<SizeResult> run(const PlanSource &source, const BenchCase &c,
                              const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                              const ProgressFn &progress = {}) const override;
  /// A simulator has no collectives of its own: both throw std::invalid_argument.
  void checkNative(const BenchCase &c) const override;
  std::vector<SizeResult> runNative(const BenchCase &c, const std::vector<SizePoint> &sizes,
                                    const LoopSettings &settings) const override;
  bool exact() const override { return true; }
  std::string timeMeaning() const override { return "simulated time"; }
  /// The simulator's reason when the topology cannot run the plan (one simulation).
  std::optional<std::string> unsupported(const Plan &plan, const BenchCase &c) const override;
  /// cpu-threads, up to kMaxCheckedRanks ranks.
  const Runner *resultChecker(int ranks, std::string &why) const override;

  /// Ranks up to which the plans' results are checked on cpu-threads.
  static constexpr int kMaxCheckedRanks = 64;

private:
  const Topology &topology_;
  HostRanksRunner threads_;
};

}  // namespace collplan::measure
