// coalesceTransfers: one message per (sender, receiver, round) where the data is contiguous.
#pragma once

#include "dialects/coll/CollOps.h"

namespace collplan {

/// Merges transfers that one rank sends to the same peer in the same round (the step of the
/// receiving op) into one message, when both ends hold the pieces next to each other: the
/// sender's values lie in adjacent ranges of one buffer (or of a range an earlier local copy
/// made equal to one of them), and the receiver writes them with plain receives into adjacent
/// ranges in the same order. Recursive doubling's round k then sends one message of 2^k blocks,
/// as MPI's does, instead of 2^k messages: every message costs a hand-off (publish, acquire,
/// release) whatever its size.
///
/// It only ever delays a send past local instructions (never past a receive) and moves a
/// receive up past instructions that neither wait nor touch what it writes, so message contents
/// are unchanged and no new wait order arises; transfers of different rounds (a pipeline's
/// slices) are never merged. Buffer overlaps are checked in the layout the program runs in
/// (UnitLayout).
/// Returns how many transfers were folded into others.
unsigned coalesceTransfers(mlir::coll::ProgramOp program);

}  // namespace collplan
