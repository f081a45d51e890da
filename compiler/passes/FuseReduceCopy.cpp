// coll-fuse-reduce-copy: a reduce whose only use is a copy becomes one reduce_send.
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "dialects/coll/CollOps.h"

#include "mlir/IR/Builders.h"

namespace collplan {
#define GEN_PASS_DEF_COLLFUSEREDUCECOPY
#include "compiler/Passes.h.inc"
}  // namespace collplan

using namespace mlir;
using namespace mlir::coll;

namespace {

struct CollFuseReduceCopyPass : collplan::impl::CollFuseReduceCopyBase<CollFuseReduceCopyPass> {
  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-fuse-reduce-copy", collplan::PassInput::Schedules)))
      return signalPassFailure();
    SmallVector<coll::ReduceOp> reduces;
    getOperation().walk([&](coll::ReduceOp op) { reduces.push_back(op); });
    for (coll::ReduceOp reduce : reduces) {
      if (!reduce.getResult().hasOneUse()) continue;
      auto copy = dyn_cast<CopyOp>(*reduce.getResult().getUsers().begin());
      if (!copy || copy.getRank() == reduce.getRank()) continue;
      // The fused op takes the copy's place: its operands are defined before the reduce.
      OpBuilder builder(copy);
      auto fused = builder.create<ReduceSendOp>(copy.getLoc(), copy.getType(),
                                                reduce.getOperands(), reduce.getRank(),
                                                copy.getRank());
      fused->setDiscardableAttrs(copy->getDiscardableAttrDictionary());
      copy.getResult().replaceAllUsesWith(fused.getResult());
      copy.erase();
      reduce.erase();
    }
  }
};

}  // namespace
