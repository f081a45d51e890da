// coll-to-program: verifies each schedule, lowers it to per-rank programs and checks them.
#include "compiler/Passes.h"

#include "compiler/analysis/CostModel.h"
#include "compiler/analysis/ScheduleVerifier.h"
#include "compiler/export/ProgramToPlan.h"
#include "compiler/export/ScheduleToProgram.h"
#include "dialects/coll/CollOps.h"

namespace collplan {
#define GEN_PASS_DEF_COLLTOPROGRAM
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollToProgramPass : collplan::impl::CollToProgramBase<CollToProgramPass> {
  void runOnOperation() override {
    llvm::SmallVector<mlir::coll::ScheduleOp> schedules;
    getOperation().walk([&](mlir::coll::ScheduleOp s) { schedules.push_back(s); });
    for (mlir::coll::ScheduleOp schedule : schedules) {
      if (mlir::failed(collplan::verifySchedule(schedule))) return signalPassFailure();
      collplan::assignSteps(schedule);  // each rank's program runs round by round
      auto program = collplan::lowerScheduleToProgram(schedule);
      if (mlir::failed(program) || mlir::failed(collplan::checkProgram(*program)))
        return signalPassFailure();
      schedule.erase();
    }
  }
};

}  // namespace
