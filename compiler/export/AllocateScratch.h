// allocateScratch: tmp units shared between values once every rank's program is ordered.
#pragma once

#include "dialects/coll/CollOps.h"

#include <cstdint>

namespace collplan {

/// Scratch of a program before and after allocateScratch, in units.
struct ScratchResult {
  uint32_t before = 0;
  uint32_t after = 0;
};

/// Gives the tmp ranges of each rank's (ordered) program physical units: ranges that an
/// instruction ever uses together form one block, and blocks whose lifetimes in program order
/// (first to last instruction touching them) do not overlap share units, first fit, keeping
/// each block's unit phase (offset mod units per block) so byte lengths still match for any
/// count. Placement gives every value units of its own (so that nothing but data orders the
/// instructions while they are ordered); this runs after coll-hoist-sends. Where a shared unit
/// is used on two channels, coll-export-plan orders the two with an `after` reference.
ScratchResult allocateScratch(mlir::coll::ProgramOp program);

}  // namespace collplan
