// Receive-reductions split into a receive into fresh scratch and a local reduction, so that
// coalesceTransfers can join their messages; the ones left alone are fused back.
#pragma once

#include "dialects/coll/CollOps.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace collplan {

/// One rank's split receive-reductions. A recv_reduce (recv_reduce_send) that takes its message
/// straight into the reduction cannot share that message with another transfer of its round:
/// split, it is a plain receive into fresh tmp units, a reduce reading them, and (for
/// recv_reduce_send) a send of the result, which the coalescer merges like any other receive
/// and send. This is how MPI's recursive halving takes a round's blocks: one message into a
/// buffer, then local reductions. What is not merged is fused back, so single messages keep
/// their single-copy reduction.
///
/// Plain receives into scratch move to fresh units in the same sequence, so that a receive and
/// a split neighbour of the same message can land side by side.
///
/// Fresh units keep the unit phase of the value they hold (offset mod units per block, which
/// fixes its byte length), consecutive receives in consecutive units where their phases allow,
/// so that adjacent values land in adjacent units and join. coll-allocate-scratch later packs
/// every tmp unit, fresh ones included.
class ReductionSplitter {
public:
  /// `scratchUnits`: the tmp units the program uses; fresh units come after them.
  ReductionSplitter(uint32_t scratchUnits, uint32_t unitsPerBlock)
      : scratchEnd_(scratchUnits), unitsPerBlock_(unitsPerBlock ? unitsPerBlock : 1) {}

  /// Splits every stepped receive-reduction of `ops` (one rank, program order).
  void split(std::vector<mlir::coll::Instruction> &ops);
  /// Fuses back each split whose receive still takes exactly its own value; dead ops stay in
  /// place as empty instructions (the caller compacts).
  void restore(std::vector<mlir::coll::Instruction> &ops) const;
  /// Tmp units in use after split (the program's scratch must cover them).
  uint32_t scratchUnits() const { return scratchEnd_; }

private:
  struct Split {
    BufRef received;             ///< the fresh units the receive writes
    std::optional<BufRef> sent;  ///< what the split send reads (for recv_reduce_send)
    mlir::coll::Instruction original;
  };
  /// A fresh range of `length` units at `phase`, after the previous one when it fits there.
  BufRef allocate(uint32_t phase, uint32_t length);

  uint32_t scratchEnd_;
  uint32_t unitsPerBlock_;
  uint32_t blockStart_ = 0, blockNext_ = 0;  ///< current fresh block, its first free phase
  bool haveBlock_ = false;
  std::vector<Split> splits_;
};

}  // namespace collplan
