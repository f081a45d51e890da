// coll-cost: prints (and optionally attaches) the cost of every coll.schedule.
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "compiler/analysis/CostModel.h"
#include "dialects/coll/CollOps.h"
#include "dialects/coll/CollectiveSpec.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/raw_ostream.h"

namespace collplan {
#define GEN_PASS_DEF_COLLCOST
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollCostPass : collplan::impl::CollCostBase<CollCostPass> {
  using CollCostBase::CollCostBase;

  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-cost", collplan::PassInput::Schedules)))
      return signalPassFailure();
    getOperation().walk([&](mlir::coll::ScheduleOp schedule) {
      collplan::ScheduleCost cost = collplan::analyzeCost(schedule);
      llvm::outs() << "coll-cost @" << schedule.getSymName() << ": "
                   << collplan::CollectiveSpec::fromOp(schedule).describe() << "\n"
                   << collplan::formatCost(cost, perRank);
      if (annotate) {
        mlir::Builder b(schedule.getContext());
        schedule->setAttr(
            "coll.cost",
            b.getDictionaryAttr({
                b.getNamedAttr("alpha_rounds", b.getI64IntegerAttr(cost.alphaRounds)),
                b.getNamedAttr("beta", b.getF64FloatAttr(cost.beta)),
                b.getNamedAttr("bytes_moved", b.getF64FloatAttr(cost.bytesMoved)),
                b.getNamedAttr("memory_touches", b.getI64IntegerAttr(cost.totalTouches())),
                b.getNamedAttr("scratch_units", b.getI64IntegerAttr(cost.peakScratchUnits())),
            }));
      }
    });
    markAllAnalysesPreserved();
  }
};

}  // namespace
