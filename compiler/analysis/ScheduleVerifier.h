// coll-verify's checker: a schedule computes its collective, deterministically, on all ranks.
#pragma once

#include "mlir/Support/LogicalResult.h"

namespace mlir::coll {
class ScheduleOp;
}

namespace collplan {

struct VerifyOptions {
  /// Stop after this many errors in one schedule.
  unsigned maxErrors = 10;
  /// Check that all copies of an output share one reduction tree and operand order.
  bool checkDeterminism = true;
};

/// Verifies `schedule` against the semantics of its collective (see Passes.td, CollVerify).
/// Each problem is reported as an error on the offending op, e.g.
/// "output rank 3 chunk 1 lacks the contribution of rank 5 chunk 1".
mlir::LogicalResult verifySchedule(mlir::coll::ScheduleOp schedule,
                                   const VerifyOptions &options = {});

}  // namespace collplan
