// Instruction views of a coll.program's rank bodies, for the export passes that rewrite them.
#pragma once

#include "compiler/export/Conflicts.h"
#include "dialects/coll/CollOps.h"

#include <cstdint>
#include <vector>

namespace collplan {

/// The instructions of `rank`, in program order.
std::vector<mlir::coll::Instruction> readRankOps(mlir::coll::RankOp rank);

/// Replaces the instructions of `rank` with `ops`.
void writeRankOps(mlir::coll::RankOp rank, const std::vector<mlir::coll::Instruction> &ops);

/// Whether a receive at `recvStep` and a send of what it received at `sendStep` may travel as
/// one forwarding instruction (recv_copy_send, recv_reduce_send): when the port model sends in
/// the next round. A fused instruction sits at its receive's step, so fusing a send the model
/// schedules later would put it ahead of the rank's sends of the rounds between.
inline bool forwardsNextRound(int32_t recvStep, int32_t sendStep) {
  return recvStep < 0 || sendStep <= recvStep + 1;
}

/// `rank`'s units as an in-place call of `program`'s collective lays them out.
UnitLayout inPlaceLayout(mlir::coll::ProgramOp program, int rank);

/// The layout the export passes order `rank`'s instructions in: in place when `program` is
/// marked coll.inplace_safe, apart otherwise (see UnitLayout).
UnitLayout unitLayout(mlir::coll::ProgramOp program, int rank);

/// Whether no rank, in program order, reads an input unit after writing the output unit an
/// in-place call aliases it to (inputUnitsClobbered): the plan may then run in place.
bool inPlaceSafe(mlir::coll::ProgramOp program);

/// Marks `program` coll.inplace_safe when inPlaceSafe, otherwise removes the mark; returns it.
bool markInPlaceSafety(mlir::coll::ProgramOp program);

}  // namespace collplan
