// The static deadlock check of a plan's per-rank programs (send/recv matching under program order).
#pragma once

#include "runtime/plan/Plan.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collplan {

/// A rank that can never finish: it is blocked at `opIndex`, a recv of `transferId` from `waitingOn`.
struct StuckRank {
  int rank = 0;
  size_t opIndex = 0;
  int32_t waitingOn = 0;
  uint32_t transferId = 0;
};

struct DeadlockReport {
  std::vector<StuckRank> stuck;  ///< every rank that cannot finish, in rank order
  /// Ranks waiting on each other in a circle, e.g. {0, 1} for "0 waits on 1 waits on 0"; empty
  /// when the wait chain ends at a rank that finished without sending (an unmatched recv).
  std::vector<int> cycle;

  bool deadlockFree() const { return stuck.empty(); }
  /// The stuck entry of the first rank of `cycle` (or the first stuck rank). Requires !deadlockFree().
  const StuckRank &firstInCycle() const;
  /// "deadlock: 2 of 4 ranks cannot finish: rank 0 waits at ops[3] for transfer 7 from rank 1;
  /// ... (cycle: 0 -> 1 -> 0)", listing at most 8 ranks.
  std::string describe() const;
  int totalRanks = 0;
};

/// Abstract interpretation of the plan under the semantics of Plan.h: sends never block, a recv
/// blocks until the send with its transfer id has executed. Every rank runs until it blocks; a
/// send wakes the rank waiting for it. O(total ops) expected time (hash lookups by transfer id).
/// Transfers are matched by id alone: run checkTransfersMatched first for peer/length checks.
DeadlockReport checkDeadlockFree(const Plan &plan);

}  // namespace collplan
