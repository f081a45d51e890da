// coll-lower-pairwise: lowers collectives whose algorithm belongs to the pairwise family.
#include "compiler/Passes.h"
#include "compiler/passes/LoweringSupport.h"

namespace collplan {
#define GEN_PASS_DEF_COLLLOWERPAIRWISE
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollLowerPairwisePass : collplan::impl::CollLowerPairwiseBase<CollLowerPairwisePass> {
  using CollLowerPairwiseBase::CollLowerPairwiseBase;

  void runOnOperation() override {
    collplan::AlgorithmParams params;
    std::unique_ptr<collplan::Topology> topo;
    if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params) ||
        mlir::failed(collplan::lowerCollectives(getOperation(), "pairwise", params)))
      signalPassFailure();
  }
};

}  // namespace
