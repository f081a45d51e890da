// Shared plumbing of the lowering passes: topology option -> AlgorithmParams.
#pragma once

#include "compiler/lowering/Algorithms.h"
#include "runtime/topology/Resolver.h"
#include "runtime/topology/Topology.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace collplan {

/// Resolves a pass's `topology` option (empty: none). On a bad spec, reports the error on
/// `module` and returns false.
inline bool resolveTopologyOption(const std::string &spec, mlir::ModuleOp module,
                                  std::unique_ptr<Topology> &out, AlgorithmParams &params) {
  if (spec.empty()) return true;
  try {
    out = std::make_unique<Topology>(resolveTopology(spec));
  } catch (const std::exception &e) {
    module.emitError() << "topology '" << spec << "': " << e.what();
    return false;
  }
  params.topology = out.get();
  return true;
}

}  // namespace collplan
