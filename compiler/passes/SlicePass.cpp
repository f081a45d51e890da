// coll-slice: replicates each schedule's dataflow per slice, interleaved for pipelining.
#include "compiler/Passes.h"

#include "dialects/coll/CollOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace collplan {
#define GEN_PASS_DEF_COLLSLICE
#include "compiler/Passes.h.inc"
}  // namespace collplan

using namespace mlir;
using namespace mlir::coll;

namespace {

/// Slices one schedule in place: every op is cloned k times (slice j of each), next to each
/// other, and the originals are erased.
void sliceSchedule(ScheduleOp schedule, int k) {
  int64_t old = schedule.getSlices().value_or(1);
  OpBuilder builder(schedule.getContext());
  Block &body = schedule.getBodyBlock();
  SmallVector<Operation *> originals;
  for (Operation &op : body) originals.push_back(&op);
  SmallVector<IRMapping> maps(k);
  for (Operation *op : originals) {
    builder.setInsertionPoint(op);
    for (int j = 0; j < k; ++j) {
      Operation *clone = builder.clone(*op, maps[j]);
      auto reslice = [&](std::optional<uint64_t> slice) {
        return builder.getI64IntegerAttr(int64_t(slice.value_or(0)) * k + j);
      };
      if (auto in = dyn_cast<InputOp>(clone)) in.setSliceAttr(reslice(in.getSlice()));
      if (auto out = dyn_cast<OutputOp>(clone)) out.setSliceAttr(reslice(out.getSlice()));
    }
  }
  for (Operation *op : llvm::reverse(originals)) op->erase();
  schedule.setSlicesAttr(builder.getI64IntegerAttr(old * k));
}

struct CollSlicePass : collplan::impl::CollSliceBase<CollSlicePass> {
  using CollSliceBase::CollSliceBase;

  void runOnOperation() override {
    if (slices < 1) {
      getOperation().emitError() << "coll-slice: slices must be at least 1 (got " << slices << ")";
      return signalPassFailure();
    }
    getOperation().walk([&](ScheduleOp schedule) {
      if (schedule.getKind() == mlir::coll::CollectiveKind::barrier) {
        if (slices > 1) schedule.emitWarning("a barrier carries no data: not sliced");
        return;
      }
      if (slices > 1) sliceSchedule(schedule, slices);
    });
  }
};

}  // namespace
