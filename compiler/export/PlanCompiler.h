// The compiler as one call: collective (or schedule) -> verified, costed, checked plan.
#pragma once

#include "compiler/analysis/CostModel.h"
#include "compiler/lowering/Algorithms.h"
#include "runtime/plan/Plan.h"

#include "mlir/Support/LogicalResult.h"

#include <string>
#include <vector>

namespace collplan {

struct CompileOptions {
  std::string algorithm;    ///< a registered algorithm (see algorithms())
  AlgorithmParams params;   ///< its parameters (topology, channels, ...)
  int slices = 1;           ///< extra pipelining slices (coll-slice)
  bool keepIR = false;      ///< fill CompiledPlan::scheduleIR / programIR
  bool explain = false;     ///< fill CompiledPlan::explanation
};

struct CompiledPlan {
  Plan plan;
  ScheduleCost cost;
  std::string scheduleIR;  ///< level 2 after slicing and step assignment
  std::string programIR;   ///< level 3
  std::vector<std::string> explanation;  ///< one line per stage: what it did
};

/// Lowers `requested` with `options.algorithm`, slices, verifies (semantics and determinism),
/// costs, orders by rounds, lowers to per-rank programs, checks them as the runtime will
/// (deadlock included) and exports the plan. On failure returns failure and sets `error` to
/// every diagnostic, one per line.
mlir::FailureOr<CompiledPlan> compileCollective(const CollectiveSpec &requested,
                                                const CompileOptions &options,
                                                std::string &error);

/// The same for a researcher's `.mlir` file holding one coll.collective (with an `algorithm`)
/// or one coll.schedule (`symbol` picks one when there are several). Errors carry
/// file:line:col.
mlir::FailureOr<CompiledPlan> compileFile(const std::string &path, const std::string &symbol,
                                          const CompileOptions &options, std::string &error);

}  // namespace collplan
