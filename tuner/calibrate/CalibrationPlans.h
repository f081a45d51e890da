// The tiny plans calibrate measures: a ring shift (point to point), a local copy, a local reduce.
#pragma once

#include "runtime/plan/Plan.h"

namespace collplan::calibrate {

/// These plans are labelled allreduce/sum so the benchmark loop accepts them, but they compute no
/// collective: they are measured with the correctness check off. Every rank does the same work at
/// the same time, as in a collective's step.

/// Point to point: every rank copies its input (one unit) to scratch, sends that to rank r+1 and
/// receives rank r−1's into its output. With 2 ranks this is an exchange. The sent value is
/// written in every call, as a collective's step values are, so the receiver reads data fresh in
/// another core's cache (a resident, unmodified buffer would be read from its own cache copy and
/// look many times faster). One transfer on the critical path (all ranks busy, as in a ring step).
Plan ringShiftPlan(int ranks);

/// Per-op overhead: every rank copies its input to its output as `ops` copies of one unit each
/// (units = ops). Against localCopyPlan (the same bytes in one op) it isolates the cost per op.
Plan localCopyChainPlan(int ranks, uint32_t ops);

/// Memory copy: every rank copies its input to its output (one unit, no transfer).
Plan localCopyPlan(int ranks);

/// Reduction: every rank adds its input into its output (out = in + out: one 2-operand reduce of
/// M bytes, no transfer; one unit, since the operands of one op must share a unit phase).
Plan localReducePlan(int ranks);

}  // namespace collplan::calibrate
