// Lowering a verified coll.schedule to per-rank programs (level 3).
#pragma once

#include "mlir/Support/LogicalResult.h"

namespace mlir::coll {
class ScheduleOp;
class ProgramOp;
}  // namespace mlir::coll

namespace collplan {

/// Builds the coll.program of `schedule` next to it (the schedule is left in place).
///
/// Placement: inputs stay in `in`, a value bound to an output at its own rank lives in that
/// output's `out` range, every other value takes a `tmp` unit of its phase (the unit position
/// in its block, so its byte length matches on every rank for any count) of its own: sharing
/// units between values would order the instructions that use them before the programs are
/// ordered, so coll-allocate-scratch does it afterwards. Transfers become matched send/recv pairs with plan-wide ids; a receive
/// whose value feeds one reduction is fused into it (recv_reduce, recv_reduce_send), and a
/// send of a freshly received or reduced range is attached to the instruction that produced
/// it (recv_copy_send, recv_reduce_send, dup_send). Remote reads become transfers.
mlir::FailureOr<mlir::coll::ProgramOp> lowerScheduleToProgram(mlir::coll::ScheduleOp schedule);

}  // namespace collplan
