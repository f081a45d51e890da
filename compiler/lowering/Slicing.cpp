// Slicing a schedule: one copy of the dataflow per slice, interleaved.
#include "compiler/lowering/Slicing.h"

#include "dialects/coll/CollOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::coll;

namespace collplan {

void sliceSchedule(ScheduleOp schedule, int k) {
  if (k <= 1) return;
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

}  // namespace collplan
