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

  /// The pipeline's lowering: its parameters as texts, and a topology given as an object.
  explicit CollLowerPass(const collplan::CompilePipelineSettings &settings)
      : given_(settings.params), givenTopology_(settings.topology) {
    algorithm = settings.algorithm;
    topology = settings.topologySpec;
    explain = settings.explain;
  }

  void runOnOperation() override {
    collplan::LoweringRequest request;
    request.algorithm = algorithm;
    request.params = given_ ? *given_ : collplan::splitParamList(params);
    request.topology = givenTopology_;
    std::unique_ptr<collplan::Topology> resolved;
    if (!collplan::resolveTopologyOption(topology, getOperation(), resolved))
      return signalPassFailure();
    if (resolved) request.topology = resolved.get();
    if (mlir::failed(collplan::lowerCollectives(getOperation(), request)))
      return signalPassFailure();
    if (explain) remarkSchedules();
  }

  void remarkSchedules() {
    getOperation().walk([](mlir::coll::ScheduleOp schedule) {
      schedule.emitRemark() << "lower: @" << schedule.getSymName() << ": "
                            << collplan::CollectiveSpec::fromOp(schedule).describe()
                            << ", a schedule of " << schedule.getBodyBlock().getOperations().size()
                            << " ops";
    });
  }

private:
  /// Set when built from C++ settings: KEY=VALUE texts, already one per assignment.
  std::optional<std::vector<std::string>> given_;
  const collplan::Topology *givenTopology_ = nullptr;
};

}  // namespace

std::unique_ptr<mlir::Pass> collplan::createLowerPass(const CompilePipelineSettings &settings) {
  return std::make_unique<CollLowerPass>(settings);
}
