// coll-lower-rdh: lowers collectives whose algorithm belongs to the rdh family.
#include "compiler/Passes.h"
#include "compiler/passes/LoweringSupport.h"

namespace collplan {
#define GEN_PASS_DEF_COLLLOWERRDH
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollLowerRdhPass : collplan::impl::CollLowerRdhBase<CollLowerRdhPass> {
  using CollLowerRdhBase::CollLowerRdhBase;

  void runOnOperation() override {
    collplan::AlgorithmParams params;
    params.dims.assign(dims.begin(), dims.end());
    params.ranksPerDevice = ranksPerDevice;
    std::unique_ptr<collplan::Topology> topo;
    if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params) ||
        mlir::failed(collplan::lowerCollectives(getOperation(), "rdh", params)))
      signalPassFailure();
  }
};

}  // namespace
