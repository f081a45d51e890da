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
/// What coalesceTransfers joined.
struct CoalesceResult {
  unsigned transfers = 0;  ///< transfers folded into another one's message
  /// Local reductions and copies folded into the one before them: after the messages join,
  /// a round's per-block reductions (recursive halving reduces every block it received) read
  /// and write adjacent ranges, and one instruction over the joined ranges does their work
  /// with one dispatch instead of one per block.
  unsigned localOps = 0;
};

/// Joins transfers, then runs of adjacent local instructions (CoalesceResult::localOps): a
/// reduce or copy joins the one before it in its rank's program when both are of the same kind,
/// step and channel, every operand and the destination continue the previous one's ranges in
/// the same buffers, and neither writes what the other reads (in the UnitLayout), so each unit
/// is still computed from the same operands in the same order.
CoalesceResult coalesceTransfers(mlir::coll::ProgramOp program);

}  // namespace collplan
