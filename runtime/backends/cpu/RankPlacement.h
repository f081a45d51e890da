// RankPlacement: where a launched job's ranks run (one core each when they fit) and how they wait.
#pragma once

#include "runtime/backends/cpu/CoreBinding.h"
#include "runtime/exec/Wait.h"

#include <vector>

namespace collplan {

/// Read once by the launching thread before ranks start (COLLPLAN_BIND and the CPUs it may use;
/// throws std::invalid_argument naming COLLPLAN_BIND when it is malformed).
class RankPlacement {
public:
  RankPlacement();

  /// Binds the calling thread to rank `rank`'s CPU (see CoreBinding.h) and returns its wait
  /// policy: defaultWaitPolicy(), polling kSpinsWhenBound times before yielding when every rank
  /// owns its core and COLLPLAN_WAIT_SPINS is unset.
  WaitPolicy place(int rank, int ranks) const;

private:
  BindMode mode_ = BindMode::Core;
  std::vector<int> cpus_;
};

/// The wait policy of `ranks` ranks that all run on this machine, in threads or processes the
/// user started (unbound): defaultWaitPolicy(), polling kSpinsWhenBound times before yielding
/// when the ranks fit on the CPUs this process may use and COLLPLAN_WAIT_SPINS is unset. With
/// a core each, the peer's flag lands within the polls (a 2-rank 8-byte allreduce on
/// cpu-threads: 0.31 us against 0.96-1.7 us yielding at once, bench/RESULTS.md); with more
/// ranks than cores a poller holds the core its peer needs, so those yield at once.
WaitPolicy waitPolicyForRanksOfThisMachine(int ranks);

}  // namespace collplan
