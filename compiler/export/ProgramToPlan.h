// Export of a coll.program to the runtime's Plan, and the runtime's checks run on it.
#pragma once

#include "runtime/plan/Plan.h"

#include "mlir/Support/LogicalResult.h"

namespace mlir::coll {
class ProgramOp;
}

namespace collplan {

/// The runtime plan of `program` (programs, units, scratch, in-place safety). `params` and
/// `predicted` are left for the caller that knows them.
Plan programToPlan(mlir::coll::ProgramOp program);

/// Validates the program exactly as the runtime will load it (op shapes, matched transfers,
/// unit phases, buffer ranges, deadlock freedom); reports the first problem on `program`.
mlir::LogicalResult checkProgram(mlir::coll::ProgramOp program);

}  // namespace collplan
