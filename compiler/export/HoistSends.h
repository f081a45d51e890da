// hoistSends: each channel's instructions in an order that publishes every value as early as
// its dependencies allow, consistent at both ends of every (sender, receiver, channel) FIFO.
#pragma once

#include "dialects/coll/CollOps.h"

#include "mlir/Support/LogicalResult.h"

namespace collplan {

/// What hoistSends did.
struct HoistResult {
  unsigned moved = 0;   ///< instructions whose position in their rank's program changed
  unsigned rounds = 0;  ///< rounds of the schedule (its depth in transfers)
  unsigned reorders = 0;  ///< messages a sender had to put before another one to avoid a deadlock
};

/// Orders every rank's instructions by running all ranks together, round by round: in each
/// round, each rank issues whatever is ready, instructions that receive nothing first (a send
/// that depends on nothing received goes before the receives it does not need), then receives
/// of messages sent in an earlier round, then what those freed. "Ready" keeps the program's
/// meaning: an instruction follows the earlier ones it conflicts with on a buffer unit
/// (instructionDependencies). A first run matches transfers by the compiler's ids and sets each
/// instruction's priority; the second runs under the execution model of runtime/plan/Plan.h
/// (transfers matched in order per sender, receiver and channel, at most kChannelDepth
/// unconsumed messages per FIFO): a receive takes its FIFO's next message, and a sender puts a
/// message in its FIFO only after the ones whose receives must precede its receive in the
/// receiver's dependencies. When that still deadlocks because a receive waits (through other
/// ranks) for what a later message of its FIFO leads to, that later message is put first and
/// the second run repeats. Each rank's body is rewritten in issue order,
/// which is then a deadlock-free execution by construction, and every FIFO's sends and receives
/// appear in the same order at both ends. The compiler's transfer ids are kept.
/// Fails, with an error on the program naming what is stuck, when the program cannot finish
/// (a deadlock under the model).
mlir::FailureOr<HoistResult> hoistSends(mlir::coll::ProgramOp program);

}  // namespace collplan
