// hoistSends: publish each value as early as its rank's program allows.
#pragma once

#include "dialects/coll/CollOps.h"

#include <vector>

namespace collplan {

/// Moves every send-only instruction (a send of resident data: no recv, no dst) of each rank's
/// program above the receives that precede it, as long as none of them writes what it sends
/// (checked both with separate buffers and with the input aliased into the output, as an
/// in-place call lays them out). A send never waits for its receiver, so publishing earlier
/// cannot deadlock and only lets the peer start sooner: a two-rank ring allgather whose odd
/// rank received before it sent took three copy times instead of two. Sends keep their order
/// among themselves. Returns how many instructions moved.
unsigned hoistSends(mlir::coll::ProgramOp program);

/// The same on one rank's plan ops, `inShift` being the rank's inPlaceUnitShift. `order`, when
/// given, is permuted along with the ops.
unsigned hoistSendOps(std::vector<PlanOp> &ops, int64_t inShift,
                      std::vector<size_t> *order = nullptr);

}  // namespace collplan
