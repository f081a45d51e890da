// The `coll-compile` pipeline: its passes in order, and its textual registration.
#include "compiler/Pipeline.h"

#include "compiler/Passes.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

namespace collplan {
namespace {

/// The textual options of `coll-compile`: every algorithm parameter, slices and explain.
struct CompilePipelineOptions : mlir::PassPipelineOptions<CompilePipelineOptions> {
  Option<int> channels{*this, "channels", llvm::cl::desc("ring: rings over disjoint link sets"),
                       llvm::cl::init(1)};
  Option<bool> bidirectional{*this, "bidirectional",
                             llvm::cl::desc("ring: half of every block goes each way"),
                             llvm::cl::init(false)};
  ListOption<int> order{*this, "order",
                        llvm::cl::desc("ring/line order, or KangaRing device order")};
  Option<int> fanout{*this, "fanout", llvm::cl::desc("pipelined tree: children per node"),
                     llvm::cl::init(2)};
  Option<int> pipeline{*this, "pipeline",
                       llvm::cl::desc("pipelined / double binary tree: chunks streamed"),
                       llvm::cl::init(4)};
  Option<int> ranksPerDevice{*this, "ranks-per-device",
                             llvm::cl::desc("KangaRing, Mesh, RDH: ranks per device"),
                             llvm::cl::init(1)};
  ListOption<int> dims{*this, "dims", llvm::cl::desc("RDH: hypercube/torus extents")};
  Option<int> ranksPerNode{*this, "ranks-per-node",
                           llvm::cl::desc("hierarchical: ranks per node (0: the topology's)"),
                           llvm::cl::init(0)};
  Option<std::string> inter{*this, "inter",
                            llvm::cl::desc("hierarchical: ring or recursive-doubling"),
                            llvm::cl::init("ring")};
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
  if (settings.slices != 1) pm.addPass(createCollSlice({settings.slices, settings.explain}));
  pm.addPass(createCollScheduleSteps());
  pm.addPass(createCollToProgram({settings.explain}));
  pm.addPass(createCollHoistSends({settings.explain}));
  pm.addPass(createCollCoalesceTransfers({settings.explain}));
  pm.addPass(createCollHoistSends({settings.explain}));
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
        AlgorithmParams &p = settings.params;
        p.channels = o.channels;
        p.bidirectional = o.bidirectional;
        p.order.assign(o.order.begin(), o.order.end());
        p.fanout = o.fanout;
        p.pipeline = o.pipeline;
        p.ranksPerDevice = o.ranksPerDevice;
        p.dims.assign(o.dims.begin(), o.dims.end());
        p.ranksPerNode = o.ranksPerNode;
        p.inter = o.inter;
        settings.topologySpec = o.topology;
        settings.slices = o.slices;
        settings.explain = o.explain;
        buildCompilePipeline(pm, settings);
      });
}

}  // namespace collplan
