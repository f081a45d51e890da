// The `coll-compile` pipeline: its passes in order, and its textual registration.
#include "compiler/Pipeline.h"

#include "compiler/Passes.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

namespace collplan {
namespace {

/// The textual options of `coll-compile`: the lowering's, slices and explain.
struct CompilePipelineOptions : mlir::PassPipelineOptions<CompilePipelineOptions> {
  Option<std::string> algorithm{*this, "algorithm",
                                llvm::cl::desc("algorithm of collectives that name none")};
  Option<std::string> params{
      *this, "params",
      llvm::cl::desc("algorithm parameters, space-separated KEY=VALUE (plan-compile --list)")};
  Option<std::string> topology{*this, "topology",
                               llvm::cl::desc("topology file, preset or generator spec")};
  Option<int> slices{*this, "slices", llvm::cl::desc("pipelining slices per chunk"),
                     llvm::cl::init(1)};
  Option<bool> explain{*this, "explain", llvm::cl::desc("report each pass's work as remarks"),
                       llvm::cl::init(false)};
};

}  // namespace

void buildCompilePipeline(mlir::OpPassManager &pm, const CompilePipelineSettings &settings) {
  pm.addPass(createLowerPass(settings));
  // A reduce whose only use sends it on becomes one reduce_send (the C++ lowerings emit them;
  // schedules and templates written by hand need not).
  pm.addPass(createCollFuseReduceCopy());
  if (settings.slices != 1) pm.addPass(createCollSlice({settings.slices, settings.explain}));
  pm.addPass(createCollScheduleSteps());
  pm.addPass(createCollToProgram({settings.explain}));
  // Ordered for the coalescing as if FIFOs were unbounded (a round's pieces to one peer may
  // outnumber their depth until they are one message); the hoist after it checks the bound.
  pm.addPass(createCollHoistSends({settings.explain, /*unboundedFifos=*/true}));
  pm.addPass(createCollCoalesceTransfers({settings.explain}));
  pm.addPass(createCollHoistSends({settings.explain, /*unboundedFifos=*/false}));
  pm.addPass(createCollAllocateScratch({settings.explain}));
  pm.addPass(createCollExportPlan({/*output=*/"", settings.explain}));
}

void registerCompilePipeline() {
  mlir::PassPipelineRegistration<CompilePipelineOptions>(
      "coll-compile",
      "Compile every coll.collective (by its algorithm) and coll.schedule into per-rank "
      "programs the runtime loads: lower, slice, steps, to-program, hoist, coalesce, "
      "allocate-scratch, export",
      [](mlir::OpPassManager &pm, const CompilePipelineOptions &o) {
        CompilePipelineSettings settings;
        settings.algorithm = o.algorithm;
        settings.params = splitParamList(o.params);
        settings.topologySpec = o.topology;
        settings.slices = o.slices;
        settings.explain = o.explain;
        buildCompilePipeline(pm, settings);
      });
}

}  // namespace collplan
