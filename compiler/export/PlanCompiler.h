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
  /// Its parameters as KEY=VALUE texts, parsed by the algorithm's specs once the algorithm is
  /// known (a file's collective may name it); `slices` is the field below.
  std::vector<std::string> params;
  const Topology *topology = nullptr;  ///< topology-aware lowering (optional)
  int slices = 1;           ///< extra pipelining slices (coll-slice)
  bool keepIR = false;      ///< fill CompiledPlan::scheduleIR / programIR
  bool explain = false;     ///< fill CompiledPlan::explanation
  /// Require every reduction to be a left fold in rank order and mark the plan so
  /// (Plan::rankOrderReductions); an algorithm that folds otherwise fails with the first unit
  /// that differs.
  bool rankOrderReductions = false;
  /// Lower and schedule every rank even where the algorithm states rank 0's program under a
  /// symmetry (AlgorithmInfo::symmetricProgram), which is otherwise built directly: the
  /// reference the direct form is tested against. `keepIR` and `explain` imply it.
  bool everyRank = false;
};

struct CompiledPlan {
  Plan plan;
  ScheduleCost cost;
  std::string scheduleIR;  ///< level 2 after slicing and step assignment
  std::string programIR;   ///< level 3
  std::vector<std::string> explanation;  ///< one line per stage: what it did
};

/// The plan's `params` record of `params` (an algorithm's values) and `slices`: every value that
/// differs from its spec's default (keys with '_' for '-'), `pipeline_slices` above 1 and the
/// topology's name.
nlohmann::json paramsRecord(const AlgorithmParams &params, int slices);

/// Lowers `requested` with `options.algorithm`, slices, verifies (semantics and determinism),
/// costs, orders by rounds, lowers to per-rank programs, checks them as the runtime will
/// (deadlock included) and exports the plan. On failure returns failure and sets `error` to
/// every diagnostic, one per line. A spec an algorithm builds from stages (compiledAsStages:
/// past the positions the verifiers index, or hierarchical allgather and reduce-scatter) is
/// compiled as compileComposedPlan compiles it. Where the algorithm states rank 0's program under
/// a symmetry for these parameters, that program is built directly and every rank's instance
/// proven, in time that grows with the rank count times one rank's program.
mlir::FailureOr<CompiledPlan> compileCollective(const CollectiveSpec &requested,
                                                const CompileOptions &options,
                                                std::string &error);

/// A collective stored as its stages (runtime/plan/Composition.h, the "composed" form): an
/// allreduce, allgather or reduce-scatter, `options.algorithm` one that composes
/// (AlgorithmInfo::composed: hierarchical, whose nodes of L consecutive ranks, `intra` and
/// `inter` parameters choose the stages). Each intra-node stage is compiled with `intra` for L
/// ranks and each inter-node stage with `inter` for ranks / L, each proven at its own size;
/// each rank builds its program from them at load. The cost is the stages' summed (an
/// inter-node stage on 1/L of the message). Compile time and file size grow with the stages,
/// not with the ranks; past 2^20 ops over all ranks the plan holds rank 0's program alone.
mlir::FailureOr<CompiledPlan> compileComposedPlan(const CollectiveSpec &spec,
                                                  const CompileOptions &options,
                                                  std::string &error);

/// The same for a researcher's `.mlir` file holding one coll.collective (with an `algorithm`)
/// or one coll.schedule (`symbol` picks one when there are several). Errors carry
/// file:line:col.
mlir::FailureOr<CompiledPlan> compileFile(const std::string &path, const std::string &symbol,
                                          const CompileOptions &options, std::string &error);

}  // namespace collplan
