// coll-lower-shot: lowers collectives whose algorithm belongs to the shot family.
#include "compiler/Passes.h"
#include "compiler/passes/LoweringSupport.h"

namespace collplan {
#define GEN_PASS_DEF_COLLLOWERSHOT
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollLowerShotPass : collplan::impl::CollLowerShotBase<CollLowerShotPass> {
  using CollLowerShotBase::CollLowerShotBase;

  void runOnOperation() override {
    collplan::AlgorithmParams params;
    std::unique_ptr<collplan::Topology> topo;
    if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params) ||
        mlir::failed(collplan::lowerCollectives(getOperation(), "shot", params)))
      signalPassFailure();
  }
};

}  // namespace
