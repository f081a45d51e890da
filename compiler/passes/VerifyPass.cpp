// coll-verify: runs the schedule verifier on every coll.schedule of the module.
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "compiler/analysis/ScheduleVerifier.h"
#include "dialects/coll/CollOps.h"

namespace collplan {
#define GEN_PASS_DEF_COLLVERIFY
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollVerifyPass : collplan::impl::CollVerifyBase<CollVerifyPass> {
  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-verify", collplan::PassInput::Schedules)))
      return signalPassFailure();
    bool ok = true;
    getOperation().walk([&](mlir::coll::ScheduleOp schedule) {
      ok &= mlir::succeeded(collplan::verifySchedule(schedule));
    });
    if (!ok) signalPassFailure();
    markAllAnalysesPreserved();
  }
};

}  // namespace
