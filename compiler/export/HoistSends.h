// hoistSends: each channel's instructions in an order that publishes every value as early as
// its dependencies allow, consistent at both ends of every (sender, receiver, channel) FIFO.
#pragma once

#include "dialects/coll/CollOps.h"

#include "mlir/Support/LogicalResult.h"

namespace collplan {

/// What hoistSends did.
struct HoistResult {
  unsigned moved = 0;  ///< instructions whose position in their rank's program changed
  /// Every channel follows the port model's rounds (the instructions' steps); false when that
  /// order could not finish and the list schedule below ordered the programs.
  bool byRounds = false;
  unsigned rounds = 0;    ///< rounds of the list schedule (its depth in transfers), if it ran
  unsigned reorders = 0;  ///< messages a sender had to put before another one to avoid a deadlock
};

/// How hoistSends bounds each FIFO while it orders the programs.
enum class FifoBound {
  /// At most kChannelDepth unconsumed messages per FIFO: the runtime's execution model. The
  /// order it writes is deadlock-free as it stands.
  ChannelDepth,
  /// No bound: for the order coll-coalesce-transfers starts from. A round whose pieces to one
  /// peer outnumber kChannelDepth (recursive doubling's last rounds from 32 ranks on) would
  /// otherwise lose its round order before the pieces become one message; the hoist after the
  /// coalescing checks the bound again.
  Unbounded,
};

/// Orders every rank's instructions so that each send goes out by its round, and every
/// (sender, receiver, channel) FIFO's sends and receives appear in the same order at both ends,
/// keeping the program's meaning: an instruction follows the earlier ones it conflicts with on a
/// buffer unit (instructionDependencies, in the program's UnitLayout).
///
/// First choice: the port model's order. Each rank's instructions sorted by step (the round
/// coll-cost gives each transfer), within a round the ones that receive nothing first, then by
/// ring shift (rank r sends to r+1, r+2, ... while receiving from r-1, r-2, ...: every turn a
/// permutation), with each receiver taking a FIFO's messages in its sender's order. A channel
/// then sends and receives as the port model's rounds do, and the simulator's time equals
/// coll-cost's on contention-free topologies. It is kept when every rank running it finishes
/// under the execution model of runtime/plan/Plan.h (transfers matched in order per sender,
/// receiver and channel, at most kChannelDepth unconsumed messages per FIFO, unless `bound`
/// lifts that limit).
///
/// Otherwise (steps a hand-written schedule chose, or that disagree at a FIFO's two ends): two
/// round-by-round list schedules of all ranks together, in which each rank issues whatever is
/// ready, instructions that receive nothing first (a send that depends on nothing received goes
/// before the receives it does not need). The first matches transfers by the compiler's ids and
/// sets each instruction's priority; the second runs under the execution model: a receive takes
/// its FIFO's next message, and a sender puts a message in its FIFO only after the ones whose
/// receives must precede its receive in the receiver's dependencies. When that still deadlocks
/// because a receive waits (through other ranks) for what a later message of its FIFO leads
/// to, that later message is put first and the second run repeats.
///
/// Each rank's body is rewritten in the chosen order, a deadlock-free execution by construction;
/// the compiler's transfer ids are kept, and the program's coll.inplace_safe mark is recomputed.
/// Fails, with an error on the program naming what is stuck, when the program cannot finish
/// (a deadlock under the model).
mlir::FailureOr<HoistResult> hoistSends(mlir::coll::ProgramOp program,
                                        FifoBound bound = FifoBound::ChannelDepth);

}  // namespace collplan
