// The `coll-compile` pass pipeline: what every tool runs to turn a collective into runtime plans.
#pragma once

#include "compiler/lowering/Algorithms.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>
#include <vector>

namespace collplan {

/// What the pipeline is asked for: the lowering's algorithm and parameters (each collective is
/// lowered by its own algorithm, with the parameters it declares), pipelining slices, and
/// whether passes report what they did as remarks (plan-compile --explain).
struct CompilePipelineSettings {
  /// The algorithm of collectives that name none (empty: naming none is an error).
  std::string algorithm;
  /// KEY=VALUE texts (plan-compile --param's syntax, without `slices`), checked by the specs.
  std::vector<std::string> params;
  /// Where topology-aware lowerings look (optional; must outlive the pass manager).
  const Topology *topology = nullptr;
  /// A topology spec (file, preset, generator) the lowering resolves when it runs, reporting a
  /// bad one as an error; it replaces `topology`. Empty: none.
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

/// Registers `coll-compile` (options: `algorithm`, `params`, `topology`, `slices`, `explain`)
/// for textual pipelines such as `coll-opt --coll-compile="params='channels=2' slices=2"`.
void registerCompilePipeline();

}  // namespace collplan
