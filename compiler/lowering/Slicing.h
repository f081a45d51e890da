// Cutting every chunk of a schedule into k slices (pipelining).
#pragma once

namespace mlir::coll {
class ScheduleOp;
}

namespace collplan {

/// Replicates `schedule`'s dataflow k times, interleaved op by op, slice s becoming s*k + j.
void sliceSchedule(mlir::coll::ScheduleOp schedule, int k);

}  // namespace collplan
