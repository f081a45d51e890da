// coll-to-program: verifies each schedule and lowers it to per-rank programs (placement).
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "compiler/analysis/ScheduleVerifier.h"
#include "compiler/export/ScheduleToProgram.h"
#include "dialects/coll/CollOps.h"

namespace collplan {
#define GEN_PASS_DEF_COLLTOPROGRAM
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollToProgramPass : collplan::impl::CollToProgramBase<CollToProgramPass> {
  using CollToProgramBase::CollToProgramBase;

  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-to-program", collplan::PassInput::Schedules)))
      return signalPassFailure();
    llvm::SmallVector<mlir::coll::ScheduleOp> schedules;
    getOperation().walk([&](mlir::coll::ScheduleOp s) { schedules.push_back(s); });
    for (mlir::coll::ScheduleOp schedule : schedules) {
      if (mlir::failed(collplan::verifySchedule(schedule))) return signalPassFailure();
      if (explain)
        schedule.emitRemark() << "verify: every output holds exactly its contributions, in one "
                                 "reduction order on all ranks";
      auto program = collplan::lowerScheduleToProgram(schedule);
      if (mlir::failed(program)) return signalPassFailure();
      if (auto cost = schedule->getAttr("coll.cost")) (*program)->setAttr("coll.cost", cost);
      schedule.erase();
    }
  }
};

}  // namespace
