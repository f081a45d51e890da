// coll-lower-tree: lowers collectives whose algorithm belongs to the tree family.
#include "compiler/Passes.h"
#include "compiler/passes/LoweringSupport.h"

namespace collplan {
#define GEN_PASS_DEF_COLLLOWERTREE
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollLowerTreePass : collplan::impl::CollLowerTreeBase<CollLowerTreePass> {
  using CollLowerTreeBase::CollLowerTreeBase;

  void runOnOperation() override {
    collplan::AlgorithmParams params;
    params.fanout = fanout;
    params.pipeline = pipeline;
    std::unique_ptr<collplan::Topology> topo;
    if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params) ||
        mlir::failed(collplan::lowerCollectives(getOperation(), "tree", params)))
      signalPassFailure();
  }
};

}  // namespace
