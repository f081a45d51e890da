// The `coll-compile` pass pipeline: what every tool runs to turn a collective into runtime plans.
#pragma once

#include "compiler/lowering/Algorithms.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace collplan {

/// What the pipeline is asked for: the algorithm parameters (for every coll.collective, each
/// lowered by its own `algorithm`), pipelining slices, and whether passes report what they did
/// as remarks (plan-compile --explain).
struct CompilePipelineSettings {
  AlgorithmParams params;  ///< params.topology must outlive the pass manager
  /// A topology spec (file, preset, generator) the lowering resolves when it runs, reporting a
  /// bad one as an error; it replaces params.topology. Empty: none.
  std::string topologySpec;
  int slices = 1;
  bool explain = false;
};

/// Adds the `coll-compile` passes to `pm`, in order: coll-lower, coll-slice (slices > 1),
/// coll-schedule-steps, coll-to-program (verification and placement), coll-coalesce-transfers,
/// coll-hoist-sends, coll-allocate-scratch, coll-export-plan. From a module of coll.collective and coll.schedule ops
/// it leaves one coll.program per collective, each proven to load as a runtime plan.
/// `coll-opt`, plan-compile, plan-view, plan-bench --algorithm and plan-tune all run this.
void buildCompilePipeline(mlir::OpPassManager &pm, const CompilePipelineSettings &settings);

/// The generic lowering pass (coll-lower) with the settings' parameters, topology and explain.
std::unique_ptr<mlir::Pass> createLowerPass(const CompilePipelineSettings &settings);

/// Registers `coll-compile` (options: every algorithm parameter, `slices`, `explain`) for
/// textual pipelines such as `coll-opt --coll-compile="channels=2 slices=2"`.
void registerCompilePipeline();

}  // namespace collplan
