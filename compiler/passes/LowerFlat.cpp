// coll-lower-flat: lowers collectives whose algorithm belongs to the flat family.
#include "compiler/Passes.h"
#include "compiler/passes/LoweringSupport.h"

namespace collplan {
#define GEN_PASS_DEF_COLLLOWERFLAT
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollLowerFlatPass : collplan::impl::CollLowerFlatBase<CollLowerFlatPass> {
  using CollLowerFlatBase::CollLowerFlatBase;

  void runOnOperation() override {
    collplan::AlgorithmParams params;
    std::unique_ptr<collplan::Topology> topo;
    if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params) ||
        mlir::failed(collplan::lowerCollectives(getOperation(), "flat", params)))
      signalPassFailure();
  }
};

}  // namespace
