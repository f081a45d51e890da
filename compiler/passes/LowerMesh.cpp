// coll-lower-mesh: lowers collectives whose algorithm belongs to the mesh family.
#include "compiler/Passes.h"
#include "compiler/passes/LoweringSupport.h"

namespace collplan {
#define GEN_PASS_DEF_COLLLOWERMESH
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollLowerMeshPass : collplan::impl::CollLowerMeshBase<CollLowerMeshPass> {
  using CollLowerMeshBase::CollLowerMeshBase;

  void runOnOperation() override {
    collplan::AlgorithmParams params;
    params.ranksPerDevice = ranksPerDevice;
    std::unique_ptr<collplan::Topology> topo;
    if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params) ||
        mlir::failed(collplan::lowerCollectives(getOperation(), "mesh", params)))
      signalPassFailure();
  }
};

}  // namespace
