// PlanHazards: the verifier's checks of timing and memory sharing (what may run at once, what
// shares a cell), as opposed to what the plan computes.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanVerify.h"

#include <vector>

namespace collplan {

/// Ops of different channels of one rank that touch a unit, at least one writing it, must be
/// ordered (program order and `after`, transitively): otherwise they may run at once, and what
/// the unit holds depends on timing.
void checkChannelHazards(const Plan &plan, std::vector<PlanProblem> &problems);

/// An op whose destination shares cells with one of its own operands at another position
/// (out[1..3) = out[0..2) + in[0..2)): the proof reads every operand before writing, but the
/// executors reduce and copy front to back, overwriting operand units before reading them. A
/// destination that is exactly an operand (out[0..2) += ...) is fine: each element is read
/// before it is written. Checked with separate buffers, and in an in-place call too for plans
/// marked inplace_safe (UnitSpace).
void checkOperandOverlap(const Plan &plan, std::vector<PlanProblem> &problems);

/// What `inplace_safe` promises: in an in-place call (in and out one buffer, UnitSpace) no op
/// reads an `in` unit after, or possibly at the same time as, an op that writes the `out` unit
/// it shares. Then every read of `in` sees the caller's input, so the in-place call computes
/// what the separate-buffer call computes (proven by the symbolic run).
void checkInPlaceAliasing(const Plan &plan, std::vector<PlanProblem> &problems);

}  // namespace collplan
