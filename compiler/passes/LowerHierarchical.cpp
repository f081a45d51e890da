// coll-lower-hierarchical: lowers collectives whose algorithm belongs to the hierarchical family.
#include "compiler/Passes.h"
#include "compiler/passes/LoweringSupport.h"

namespace collplan {
#define GEN_PASS_DEF_COLLLOWERHIERARCHICAL
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollLowerHierarchicalPass : collplan::impl::CollLowerHierarchicalBase<CollLowerHierarchicalPass> {
  using CollLowerHierarchicalBase::CollLowerHierarchicalBase;

  void runOnOperation() override {
    collplan::AlgorithmParams params;
    params.ranksPerNode = ranksPerNode;
    params.inter = inter;
    std::unique_ptr<collplan::Topology> topo;
    if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params) ||
        mlir::failed(collplan::lowerCollectives(getOperation(), "hierarchical", params)))
      signalPassFailure();
  }
};

}  // namespace
