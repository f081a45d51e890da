// coll-coalesce-transfers: message aggregation on every coll.program of the module.
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "compiler/export/CoalesceTransfers.h"
#include "dialects/coll/CollOps.h"
#include "runtime/core/CountNoun.h"

namespace collplan {
#define GEN_PASS_DEF_COLLCOALESCETRANSFERS
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollCoalesceTransfersPass
    : collplan::impl::CollCoalesceTransfersBase<CollCoalesceTransfersPass> {
  using CollCoalesceTransfersBase::CollCoalesceTransfersBase;

  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-coalesce-transfers", collplan::PassInput::Programs)))
      return signalPassFailure();
    getOperation().walk([&](mlir::coll::ProgramOp program) {
      const collplan::CoalesceResult joined = collplan::coalesceTransfers(program);
      if (explain)
        program.emitRemark() << "coalesce: " << collplan::countNoun(joined.transfers, "transfer")
                             << " joined to another one of the same round, peers and channel; "
                             << collplan::countNoun(joined.localOps, "local instruction")
                             << " joined to the one before it";
    });
  }
};

}  // namespace
