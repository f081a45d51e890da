// coll-slice: replicates each schedule's dataflow per slice, interleaved for pipelining.
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "compiler/lowering/Slicing.h"
#include "dialects/coll/CollOps.h"
#include "runtime/core/Limits.h"


namespace collplan {
#define GEN_PASS_DEF_COLLSLICE
#include "compiler/Passes.h.inc"
}  // namespace collplan

using namespace mlir;
using namespace mlir::coll;

namespace {

struct CollSlicePass : collplan::impl::CollSliceBase<CollSlicePass> {
  using CollSliceBase::CollSliceBase;

  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-slice", collplan::PassInput::Schedules)))
      return signalPassFailure();
    if (slices < 1 || slices > collplan::kMaxSlices) {
      getOperation().emitError() << "coll-slice: slices must be 1 to " << collplan::kMaxSlices
                                 << " (got " << int64_t(slices) << ")";
      return signalPassFailure();
    }
    getOperation().walk([&](ScheduleOp schedule) {
      if (schedule.getKind() == mlir::coll::CollectiveKind::barrier) {
        if (slices > 1) schedule.emitWarning("a barrier carries no data: not sliced");
        return;
      }
      if (slices <= 1) return;
      collplan::sliceSchedule(schedule, slices);
      if (explain)
        schedule.emitRemark() << "slice: every chunk cut into " << int(slices) << " slices ("
                              << schedule.getBodyBlock().getOperations().size() << " ops)";
    });
  }
};

}  // namespace
