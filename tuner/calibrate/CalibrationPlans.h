// The tiny plans calibrate measures: a ring shift (point to point), a local copy, a local reduce.
#pragma once

#include "runtime/plan/Plan.h"

namespace collplan::calibrate {

/// These plans are labelled allreduce/sum so the benchmark loop accepts them, but they compute no
/// collective: they are measured with the correctness check off. Every rank does the same work at
/// the same time, as in a collective's step.

/// Point to point: every rank sends its whole input (one unit) to rank r+1 and receives rank
/// r−1's into its output. With 2 ranks this is an exchange. One transfer on the critical path, so
/// its time is α + M/B of the backend's transfers (all ranks busy, as in a ring step).
Plan ringShiftPlan(int ranks);

/// Memory copy: every rank copies its input to its output (one unit, no transfer).
Plan localCopyPlan(int ranks);

/// Reduction: every rank adds its input into its output (out = in + out: one 2-operand reduce of
/// M bytes, no transfer; one unit, since the operands of one op must share a unit phase).
Plan localReducePlan(int ranks);

}  // namespace collplan::calibrate
