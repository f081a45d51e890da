// Instruction views of a coll.program's rank bodies, for the export passes that rewrite them.
#pragma once

#include "dialects/coll/CollOps.h"

#include <cstdint>
#include <vector>

namespace collplan {

/// The instructions of `rank`, in program order.
std::vector<mlir::coll::Instruction> readRankOps(mlir::coll::RankOp rank);

/// Replaces the instructions of `rank` with `ops`.
void writeRankOps(mlir::coll::RankOp rank, const std::vector<mlir::coll::Instruction> &ops);

/// Units from the start of `out` to where `in` starts when rank `rank` calls the program's
/// collective in place (inPlaceBlockShift x units per block); rangesOverlap takes it.
int64_t inPlaceUnitShift(mlir::coll::ProgramOp program, int rank);

}  // namespace collplan
