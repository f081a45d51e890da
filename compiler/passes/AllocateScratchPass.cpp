// coll-allocate-scratch: shares tmp units in every ordered coll.program of the module.
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "compiler/export/AllocateScratch.h"
#include "dialects/coll/CollOps.h"
#include "runtime/core/CountNoun.h"

namespace collplan {
#define GEN_PASS_DEF_COLLALLOCATESCRATCH
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollAllocateScratchPass
    : collplan::impl::CollAllocateScratchBase<CollAllocateScratchPass> {
  using CollAllocateScratchBase::CollAllocateScratchBase;

  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-allocate-scratch", collplan::PassInput::Programs)))
      return signalPassFailure();
    getOperation().walk([&](mlir::coll::ProgramOp program) {
      const collplan::ScratchResult result = collplan::allocateScratch(program);
      if (explain)
        program.emitRemark() << "scratch: "
                             << (result.before == 0
                                     ? std::string("none")
                                     : collplan::countNoun(result.after, "tmp unit") + " shared by "
                                           "values that had " +
                                           collplan::countNoun(result.before, "unit") +
                                           " of their own");
    });
  }
};

}  // namespace
