// Shared plumbing of the lowering passes: the topology option resolved.
#pragma once

#include "compiler/lowering/Algorithms.h"
#include "runtime/topology/Resolver.h"
#include "runtime/topology/Topology.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace collplan {

/// Resolves a pass's `topology` option (empty: none, `out` left empty). On a bad spec, reports
/// the error on `module` and returns false.
inline bool resolveTopologyOption(const std::string &spec, mlir::ModuleOp module,
                                  std::unique_ptr<Topology> &out) {
  if (spec.empty()) return true;
  try {
    out = std::make_unique<Topology>(resolveTopology(spec));
  } catch (const std::exception &e) {
    module.emitError() << "topology '" << spec << "': " << e.what();
    return false;
  }
  return true;
}

/// The same, also pointing `params.topology` at the result when there is one.
inline bool resolveTopologyOption(const std::string &spec, mlir::ModuleOp module,
                                  std::unique_ptr<Topology> &out, AlgorithmParams &params) {
  if (!resolveTopologyOption(spec, module, out)) return false;
  if (out) params.topology = out.get();
  return true;
}

}  // namespace collplan
