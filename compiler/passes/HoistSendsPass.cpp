// coll-hoist-sends: orders every coll.program's channels (sends before unneeded receives).
#include "compiler/Passes.h"

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
    bool ok = true;
    getOperation().walk([&](mlir::coll::ProgramOp program) {
      mlir::FailureOr<collplan::HoistResult> result = collplan::hoistSends(program);
      if (mlir::failed(result)) {
        ok = false;
        return;
      }
      if (explain)
        program.emitRemark() << "hoist: " << collplan::countNoun(result->moved, "instruction")
                             << " moved so that sends go before the receives they do not "
                                "need; "
                             << collplan::countNoun(result->rounds, "round")
                             << (result->reorders ? ", " + collplan::countNoun(result->reorders, "message") +
                                                        " sent ahead of another for the receiver"
                                                  : std::string());
    });
    if (!ok) signalPassFailure();
  }
};

}  // namespace
