// coll-lower-ring: lowers collectives whose algorithm is "ring" or "line".
#include "compiler/Passes.h"
#include "compiler/passes/LoweringSupport.h"

namespace collplan {
#define GEN_PASS_DEF_COLLLOWERRING
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollLowerRingPass : collplan::impl::CollLowerRingBase<CollLowerRingPass> {
  using CollLowerRingBase::CollLowerRingBase;

  void runOnOperation() override {
    collplan::AlgorithmParams params;
    params.channels = channels;
    params.bidirectional = bidirectional;
    params.order.assign(order.begin(), order.end());
    std::unique_ptr<collplan::Topology> topo;
    if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params) ||
        mlir::failed(collplan::lowerCollectives(getOperation(), "ring", params)))
      signalPassFailure();
  }
};

}  // namespace
