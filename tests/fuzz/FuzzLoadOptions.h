// The plan loader options the plan and bundle fuzz targets load with: a small proof budget.
#pragma once

#include "runtime/plan/PlanJson.h"

namespace collplan::fuzz {

/// The proof's budget while fuzzing: the default admits proofs of seconds in a Release build,
/// which under ASan and coverage take minutes and would read as hangs. Inputs over it still
/// go through parsing, validation and the budget check itself.
constexpr uint64_t kFuzzProofUnits = 1 << 16;

/// Every program (rank -1) or one rank's, proven within kFuzzProofUnits.
inline PlanLoadOptions loadOptions(int rank = -1) {
  PlanLoadOptions options;
  options.maxProofUnits = kFuzzProofUnits;
  options.onlyRank = rank;
  return options;
}

}  // namespace collplan::fuzz
