// RankPlacement: CoreBinding for the ranks a backend launches, with the matching wait policy.
#include "runtime/backends/cpu/RankPlacement.h"

#include <cstdlib>
#include <stdexcept>

namespace collplan {

RankPlacement::RankPlacement() : cpus_(allowedCpus()) {
  if (auto why = bindModeFromEnv(mode_)) throw std::invalid_argument(*why);
}

WaitPolicy waitPolicyForRanksOfThisMachine(int ranks) {
  WaitPolicy policy = defaultWaitPolicy();
  if (ranks >= 1 && size_t(ranks) <= allowedCpus().size() && !std::getenv("COLLPLAN_WAIT_SPINS"))
    policy.spins = kSpinsWhenBound;
  return policy;
}

WaitPolicy RankPlacement::place(int rank, int ranks) const {
  WaitPolicy policy = defaultWaitPolicy();
  if (bindCallerToCpu(cpuForRank(mode_, cpus_, rank, ranks)) &&
      ranksOwnTheirCores(mode_, cpus_, ranks) && !std::getenv("COLLPLAN_WAIT_SPINS"))
    policy.spins = kSpinsWhenBound;
  return policy;
}

}  // namespace collplan
