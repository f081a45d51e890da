// coll-lower-kangaring: lowers collectives whose algorithm belongs to the kangaring family.
#include "compiler/Passes.h"
#include "compiler/passes/LoweringSupport.h"

namespace collplan {
#define GEN_PASS_DEF_COLLLOWERKANGARING
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollLowerKangaRingPass : collplan::impl::CollLowerKangaRingBase<CollLowerKangaRingPass> {
  using CollLowerKangaRingBase::CollLowerKangaRingBase;

  void runOnOperation() override {
    collplan::AlgorithmParams params;
    params.ranksPerDevice = ranksPerDevice;
    params.order.assign(order.begin(), order.end());
    std::unique_ptr<collplan::Topology> topo;
    if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params) ||
        mlir::failed(collplan::lowerCollectives(getOperation(), "kangaring", params)))
      signalPassFailure();
  }
};

}  // namespace
