// coll-hoist-sends: orders every coll.program's channels (sends before unneeded receives).
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "compiler/export/HoistSends.h"
#include "dialects/coll/CollOps.h"
#include "runtime/core/CountNoun.h"

namespace collplan {
#define GEN_PASS_DEF_COLLHOISTSENDS
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollHoistSendsPass : collplan::impl::CollHoistSendsBase<CollHoistSendsPass> {
  using CollHoistSendsBase::CollHoistSendsBase;

  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-hoist-sends", collplan::PassInput::Programs)))
      return signalPassFailure();
    bool ok = true;
    getOperation().walk([&](mlir::coll::ProgramOp program) {
      mlir::FailureOr<collplan::HoistResult> result = collplan::hoistSends(
          program, unboundedFifos ? collplan::FifoBound::Unbounded
                                  : collplan::FifoBound::ChannelDepth);
      if (mlir::failed(result)) {
        ok = false;
        return;
      }
      if (explain) {
        auto remark = program.emitRemark();
        remark << "hoist: " << collplan::countNoun(result->moved, "instruction") << " moved; ";
        if (result->byRounds) {
          remark << "every channel in the port model's rounds, sends first within a round";
        } else {
          remark << "sends as early as they are ready ("
                 << (program.getSendsFirst() ? "sends_first"
                                             : "the steps give no order that finishes")
                 << "), " << collplan::countNoun(result->rounds, "round");
          if (result->reorders)
            remark << ", " << collplan::countNoun(result->reorders, "message")
                   << " sent ahead of another for the receiver";
        }
      }
    });
    if (!ok) signalPassFailure();
  }
};

}  // namespace
