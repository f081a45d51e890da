// RankPlacement: CoreBinding for the ranks a backend launches, with the matching wait policy.
#include "runtime/backends/cpu/RankPlacement.h"

#include <cstdlib>
#include <stdexcept>

namespace collplan {

RankPlacement::RankPlacement() : cpus_(allowedCpus()) {
  if (auto why = bindModeFromEnv(mode_)) throw std::invalid_argument(*why);
}

WaitPolicy waitPolicyForRanksOfThisMachine(int ranks) {
  return pollingWhenRanksFit(defaultWaitPolicy(), ranks, allowedCpus().size(), kSpinsWhenBound);
}

WaitPolicy RankPlacement::place(int rank, int ranks) const {
  const bool bound = bindCallerToCpu(cpuForRank(mode_, cpus_, rank, ranks));
  if (!bound || mode_ != BindMode::Core) return defaultWaitPolicy();
  return pollingWhenRanksFit(defaultWaitPolicy(), ranks, cpus_.size(), kSpinsWhenBound);
}

}  // namespace collplan
