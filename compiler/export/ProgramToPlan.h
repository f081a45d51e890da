// Export of a coll.program to the runtime's Plan, and the runtime's checks run on it.
#pragma once

#include "runtime/plan/Plan.h"

#include "mlir/Support/LogicalResult.h"

namespace mlir::coll {
class ProgramOp;
}

namespace collplan {

/// The runtime plan of `program` (programs, units, scratch, in-place safety, predicted cost from
/// a `coll.cost` attribute). Each rank's instructions go to their channels in program order;
/// an instruction that conflicts on a buffer unit with an earlier one of another channel
/// (instructionDependencies) waits for it with an `after` reference. The compiler's transfer
/// ids are dropped: the plan matches transfers by their order per sender, receiver and channel,
/// which the program's order must already give (hoistSends orders programs so). `params` is
/// left for the caller that knows them.
Plan programToPlan(mlir::coll::ProgramOp program);

/// Validates the exported program exactly as the runtime will load it (op shapes, transfers
/// matched in order, unit phases, buffer ranges, `after` references, deadlock freedom) and
/// proves it computes its collective (verifyPlan: contributions, determinism, initialisation);
/// reports the first problem on `program`.
mlir::LogicalResult checkProgram(mlir::coll::ProgramOp program);

}  // namespace collplan
