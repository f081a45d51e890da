// coll-lower: lowers every coll.collective by its own algorithm, through the registry.
#include "compiler/Passes.h"
#include "compiler/Pipeline.h"
#include "compiler/passes/LoweringSupport.h"

#include "dialects/coll/CollOps.h"
#include "dialects/coll/CollectiveSpec.h"

namespace collplan {
#define GEN_PASS_DEF_COLLLOWER
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollLowerPass : collplan::impl::CollLowerBase<CollLowerPass> {
  using CollLowerBase::CollLowerBase;

  /// Parameters given in C++ rather than as options (see createLowerPass).
  explicit CollLowerPass(const collplan::CompilePipelineSettings &settings)
      : given_(settings.params), explain_(settings.explain) {
    topology = settings.topologySpec;
  }

  void runOnOperation() override {
    collplan::AlgorithmParams params;
    std::unique_ptr<collplan::Topology> topo;
    if (given_) {
      params = *given_;
      if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params))
        return signalPassFailure();
    } else {
      params.channels = channels;
      params.bidirectional = bidirectional;
      params.order.assign(order.begin(), order.end());
      params.fanout = fanout;
      params.pipeline = pipeline;
      params.ranksPerDevice = ranksPerDevice;
      params.dims.assign(dims.begin(), dims.end());
      params.ranksPerNode = ranksPerNode;
      params.inter = inter;
      if (!collplan::resolveTopologyOption(topology, getOperation(), topo, params))
        return signalPassFailure();
    }
    if (mlir::failed(collplan::lowerCollectives(getOperation(), "", params)))
      return signalPassFailure();
    if (!explain_) return;
    getOperation().walk([](mlir::coll::ScheduleOp schedule) {
      schedule.emitRemark() << "lower: @" << schedule.getSymName() << ": "
                            << collplan::CollectiveSpec::fromOp(schedule).describe()
                            << ", a schedule of " << schedule.getBodyBlock().getOperations().size()
                            << " ops";
    });
  }

private:
  std::optional<collplan::AlgorithmParams> given_;
  bool explain_ = false;
};

}  // namespace

std::unique_ptr<mlir::Pass> collplan::createLowerPass(const CompilePipelineSettings &settings) {
  return std::make_unique<CollLowerPass>(settings);
}
