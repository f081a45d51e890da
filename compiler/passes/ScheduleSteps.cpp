// coll-schedule-steps: numbers every op with its port-model round and orders ops by it.
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "compiler/analysis/CostModel.h"
#include "dialects/coll/CollOps.h"

namespace collplan {
#define GEN_PASS_DEF_COLLSCHEDULESTEPS
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollScheduleStepsPass : collplan::impl::CollScheduleStepsBase<CollScheduleStepsPass> {
  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-schedule-steps", collplan::PassInput::Schedules)))
      return signalPassFailure();
    getOperation().walk([](mlir::coll::ScheduleOp schedule) { collplan::assignSteps(schedule); });
  }
};

}  // namespace
