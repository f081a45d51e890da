// compileCollective / compileFile: the coll-compile pipeline on one collective, with its
// diagnostics, explanations and level-2 figures collected.
#include "compiler/export/PlanCompiler.h"

#include "compiler/Pipeline.h"
#include "compiler/Registration.h"
#include "compiler/analysis/SourceNesting.h"
#include "compiler/export/ProgramToPlan.h"
#include "runtime/plan/Composition.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/core/Files.h"
#include "runtime/core/Text.h"
#include "runtime/plan/PlanVerify.h"
#include "runtime/plan/Symmetry.h"
#include "runtime/topology/Topology.h"
#include "dialects/coll/CollOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// An MLIR context with the dialect loaded that gathers diagnostics: errors and notes as
/// "file:line:col: error: msg" (bare "msg" for an error without a location, such as one about
/// parameters), remarks (what each pass did, under `explain`) as lines of their own.
class CompilerContext {
public:
  CompilerContext() : context_(MLIRContext::Threading::DISABLED) {
    DialectRegistry registry;
    registerAll(registry);
    context_.appendDialectRegistry(registry);
    context_.loadAllAvailableDialects();
    // An error names its op; printing the whole op (a program of thousands of instructions)
    // would bury the reason.
    context_.printOpOnDiagnostic(false);
    handler_ = std::make_unique<ScopedDiagnosticHandler>(&context_, [this](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Remark) {
        remarks_.push_back(diag.str());
        return success();
      }
      std::string line;
      llvm::raw_string_ostream os(line);
      auto fl = dyn_cast<FileLineColLoc>(diag.getLocation());
      if (fl) os << fl.getFilename().getValue() << ":" << fl.getLine() << ":" << fl.getColumn() << ": ";
      if (fl || diag.getSeverity() != DiagnosticSeverity::Error)
        os << (diag.getSeverity() == DiagnosticSeverity::Error ? "error: " : "note: ");
      os << diag.str();
      for (Diagnostic &note : diag.getNotes()) os << "\n  note: " << note.str();
      messages_ += (messages_.empty() ? "" : "\n") + os.str();
      return success();
    });
  }
  MLIRContext &get() { return context_; }
  /// All diagnostics so far, or `fallback` when there were none.
  std::string messages(const std::string &fallback) const {
    return messages_.empty() ? fallback : messages_;
  }
  /// Remarks so far, emptied.
  std::vector<std::string> takeRemarks() { return std::exchange(remarks_, {}); }

private:
  MLIRContext context_;
  std::unique_ptr<ScopedDiagnosticHandler> handler_;
  std::string messages_;
  std::vector<std::string> remarks_;
};

/// Prints a verified op in its custom form (both levels were verified before printing).
std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, OpPrintingFlags().assumeVerified());
  return text + "\n";
}

/// Watches the pipeline for what CompiledPlan reports about level 2: just before the schedule
/// becomes a program, its cost (and its IR when asked) and an explanation line each.
class ScheduleSnapshot : public PassInstrumentation {
public:
  ScheduleSnapshot(CompiledPlan &out, CompilerContext &ctx, const CompileOptions &options)
      : out_(out), ctx_(ctx), options_(options) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    if (pass->getArgument() != "coll-to-program") return;
    op->walk([&](ScheduleOp schedule) {
      out_.cost = analyzeCost(schedule);
      if (options_.keepIR) out_.scheduleIR = printOp(schedule);
      explain("cost: " + std::to_string(out_.cost.alphaRounds) + " alpha rounds, beta " +
              std::to_string(out_.cost.beta) + ", " + std::to_string(out_.cost.transfers) +
              " transfers");
      explain("steps: ops ordered by their port-model round");
    });
  }
  void runAfterPass(Pass *, Operation *) override { collectRemarks(); }
  void runAfterPassFailed(Pass *, Operation *) override { collectRemarks(); }

private:
  void explain(const std::string &line) {
    collectRemarks();
    if (options_.explain) out_.explanation.push_back(line);
  }
  void collectRemarks() {
    for (std::string &line : ctx_.takeRemarks())
      if (options_.explain) out_.explanation.push_back(std::move(line));
  }

  CompiledPlan &out_;
  CompilerContext &ctx_;
  const CompileOptions &options_;
};

/// The values of `algorithm`'s parameters the options give (its defaults without one: a
/// schedule, lowered already). On a refused value sets `error` and returns nothing.
std::optional<AlgorithmParams> resolveParams(const AlgorithmInfo *algorithm,
                                             const CompileOptions &options, std::string &error) {
  if (!algorithm) return AlgorithmParams();
  AlgorithmParams params(*algorithm, options.topology);
  if (auto bad = params.assign(options.params)) {
    error = *bad;
    return std::nullopt;
  }
  return params;
}

/// Runs the coll-compile pipeline on `module` (one collective of `algorithm`, or a schedule)
/// and exports the plan.
FailureOr<CompiledPlan> runCompilePipeline(ModuleOp module, const AlgorithmInfo *algorithm,
                                           const CompileOptions &options, CompilerContext &ctx,
                                           std::string &error) {
  ParamValue slices;
  if (auto bad = parseParamValue(slicesParamSpec(), std::to_string(options.slices), slices)) {
    error = "slices=" + std::to_string(options.slices) + ": " + *bad;
    return failure();
  }
  const std::optional<AlgorithmParams> params = resolveParams(algorithm, options, error);
  if (!params) return failure();
  CompiledPlan out;
  PassManager pm(&ctx.get(), ModuleOp::getOperationName());
  pm.enableVerifier(false);  // coll-export-plan proves the result as the runtime loads it
  pm.addInstrumentation(std::make_unique<ScheduleSnapshot>(out, ctx, options));
  CompilePipelineSettings settings;
  settings.params = options.params;
  settings.topology = options.topology;
  settings.slices = options.slices;
  settings.explain = options.explain;
  buildCompilePipeline(pm, settings);
  SettledScheduleReuse reuse;  // the cost report and coll-to-program share one list schedule
  if (failed(pm.run(module))) {
    error = ctx.messages("compilation failed");
    return failure();
  }
  ProgramOp program;
  module.walk([&](ProgramOp p) { program = p; });
  if (!program) {
    error = "the pipeline produced no coll.program";
    return failure();
  }
  out.plan = programToPlan(program);
  if (options.rankOrderReductions)
    if (std::optional<std::string> why = markRankOrder(out.plan)) {
      error = *why + " (--fixed-reduction-order)";
      return failure();
    }
  out.plan.params.update(paramsRecord(*params, options.slices));
  out.plan.predicted = {double(out.cost.alphaRounds), out.cost.beta};
  if (options.keepIR) out.programIR = printOp(program);
  return out;
}

const AlgorithmInfo *lookupAlgorithm(StringRef name, std::string &error) {
  const AlgorithmInfo *algorithm = findAlgorithm(name);
  if (!algorithm)
    error = "unknown algorithm '" + name.str() + "' (known: " + algorithmNames() + ")";
  return algorithm;
}

}  // namespace

nlohmann::json paramsRecord(const AlgorithmParams &params, int slices) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < params.specs().size(); ++i) {
    const ParamSpec &spec = params.specs()[i];
    if (params.isDefault(spec.name)) continue;
    std::string key = spec.name;
    std::replace(key.begin(), key.end(), '-', '_');
    std::visit([&](const auto &value) { j[key] = value; }, params.valueAt(i));
  }
  if (slices > 1) j["pipeline_slices"] = slices;
  if (params.topology) j["topology"] = params.topology->name;
  return j;
}

namespace {

/// The stage plans of `form`, each compiled and proven at its own size; the cost summed (an
/// inter-node stage on 1/L of the message).
FailureOr<HierarchicalStages> compileStages(const CollectiveSpec &spec,
                                            const CompileOptions &options,
                                            const ComposedForm &form, CompiledPlan &out,
                                            std::string &error) {
  const int local = form.ranksPerNode;
  HierarchicalStages stages{spec.kind, local, {}};
  const std::vector<StageRole> &roles = composedStages(spec.kind);
  for (size_t s = 0; s < roles.size(); ++s) {
    const bool across = stageAcrossNodes(roles[s]);
    CollectiveSpec stageSpec;
    stageSpec.kind = stageCollective(roles[s]);
    stageSpec.ranks = across ? spec.ranks / local : local;
    if (needsReduceOp(stageSpec.kind)) stageSpec.op = spec.op;
    CompileOptions stageOptions;
    stageOptions.algorithm = form.stageAlgorithms.at(s);
    stageOptions.slices = options.slices;
    stageOptions.explain = options.explain;
    const std::string what(stageDescription(roles[s]));
    std::string stageError;
    FailureOr<CompiledPlan> stage = compileCollective(stageSpec, stageOptions, stageError);
    if (failed(stage)) {
      error = what + " (" + stageOptions.algorithm + " on " + std::to_string(stageSpec.ranks) +
              " ranks): " + stageError;
      return failure();
    }
    stages.plans.push_back(std::move(stage->plan));
    // An inter-node stage moves 1/L of the message; K nodes run each intra-node stage and L
    // local indices each inter-node one.
    const double share = across ? 1.0 / local : 1.0;
    const int64_t instances = across ? local : spec.ranks / local;
    out.cost.alphaRounds += stage->cost.alphaRounds;
    out.cost.beta += stage->cost.beta * share;
    out.cost.transfers += stage->cost.transfers * instances;
    out.cost.bytesMoved += stage->cost.bytesMoved * share * double(instances);
    for (std::string &line : stage->explanation) out.explanation.push_back(what + ": " + line);
  }
  return stages;
}

/// Past this many ops over every rank's program (about 250 MB), a composed plan is not built
/// whole: an allgather's or reduce-scatter's rank has a copy per block, N² over all ranks, and a
/// 4 096-rank allreduce of 512 nodes has 4.3 M ops (1.3 GB built and validated). The simulator
/// builds such a plan's programs when it runs it.
constexpr uint64_t kWholeCompositionOps = uint64_t(1) << 20;

/// The composed plan of `stages`: every rank's program when that fits kWholeCompositionOps,
/// validated as a whole; otherwise the program of rank 0 alone (Plan::onlyRank), with the
/// programs of the first and last ranks of the first and last nodes validated one by one.
FailureOr<Plan> composeAndValidate(const HierarchicalStages &stages, int ranks,
                                   std::string &error) {
  const std::string advice = " (the stages' scratch must hold each block's partial results in "
                             "units of that block: runtime/plan/Composition.h)";
  try {
    if (composedProgramSize(stages, ranks).ops <= kWholeCompositionOps) {
      Plan plan = composeHierarchical(stages, ranks);
      validatePlan(plan, "the composed plan");
      return plan;
    }
    Plan first = composeHierarchical(stages, ranks, 0);
    validatePlan(first, "the composed plan");
    for (int rank : sampledRanks(stages, ranks))
      if (rank != 0) validatePlan(composeHierarchical(stages, ranks, rank), "the composed plan");
    return first;
  } catch (const std::invalid_argument &e) {
    error = e.what();
  } catch (const PlanError &e) {
    error = std::string(e.what()) + advice;
  }
  return failure();
}

/// The composed plan of `algorithm` (which composes) for `spec`.
FailureOr<CompiledPlan> compileComposed(const CollectiveSpec &spec, const CompileOptions &options,
                                        const AlgorithmInfo &algorithm,
                                        const AlgorithmParams &params, std::string &error) {
  if (options.slices > 1 && spec.kind == CollectiveKind::AllReduce) {
    // Refused before compiling the stages (a 512-rank 2-slice ring stage takes 109 s and 3.9 GB).
    error = "slices=" + std::to_string(options.slices) +
            ": a composed allreduce's stages are not sliced (a sliced stage reuses a scratch "
            "unit for the slices of several blocks, whose units differ in size: "
            "runtime/plan/Composition.h)";
    return failure();
  }
  const std::optional<ComposedForm> form = algorithm.composed(spec, params, error);
  if (!form) return failure();
  CompiledPlan out;
  FailureOr<HierarchicalStages> stages = compileStages(spec, options, *form, out, error);
  if (failed(stages)) return failure();
  FailureOr<Plan> plan = composeAndValidate(*stages, spec.ranks, error);
  if (failed(plan)) return failure();
  out.plan = std::move(*plan);
  out.plan.params.update(paramsRecord(params, options.slices));
  return out;
}

/// The plan and cost of `form` without programs: the fields the pipeline's export would give
/// the same schedule.
CompiledPlan statedPlanHeader(const CollectiveSpec &spec, const AlgorithmInfo &algorithm,
                              const AlgorithmParams &params, const CompileOptions &options,
                              const SymmetricProgram &form) {
  const CollectiveSpec lowered = algorithmSpec(spec, algorithm, params);
  CompiledPlan out;
  Plan &plan = out.plan;
  plan.collective = spec.kind;
  plan.ranks = spec.ranks;
  plan.op = spec.op;
  plan.algorithm = algorithm.name;
  plan.params = {{"chunks", lowered.chunks}, {"slices", lowered.slices}};
  plan.params.update(paramsRecord(params, options.slices));
  plan.units = form.units;
  plan.scratchUnits = form.scratchUnits;
  plan.inplaceSafe = form.inplaceSafe;
  plan.predicted = {double(form.alphaRounds), form.beta};
  out.cost.alphaRounds = form.alphaRounds;
  out.cost.beta = form.beta;
  out.cost.transfers = form.transfers;
  out.cost.bytesMoved = form.bytesMoved;
  return out;
}

/// `form`, rank 0's program of `algorithm` for `spec`, as a plan: every rank's instance,
/// validated and proven as the runtime loads it (a wrong rule is a compiler defect, reported as
/// such rather than returned as a plan).
FailureOr<CompiledPlan> compileSymmetric(const CollectiveSpec &spec,
                                         const AlgorithmInfo &algorithm,
                                         const AlgorithmParams &params,
                                         const CompileOptions &options, SymmetricProgram form,
                                         std::string &error) {
  CompiledPlan out = statedPlanHeader(spec, algorithm, params, options, form);
  Plan &plan = out.plan;
  const std::string origin = algorithm.name + "'s " + std::string(toString(spec.kind)) +
                             " stated under " + std::string(toString(form.symmetry.group));
  const FieldPath root;
  try {
    checkSymmetryForm(plan, form.symmetry, form.base, origin, root / "symmetric");
    plan.programs.reserve(size_t(spec.ranks));
    for (int rank = 0; rank < spec.ranks; ++rank)
      plan.programs.push_back(instantiateProgram(plan, form.symmetry, form.base, rank));
    plan.symmetry = std::move(form.symmetry);
    validatePlan(plan, origin, SymmetrySource::Instantiated);
  } catch (const PlanError &e) {
    error = "compiler defect: " + std::string(e.what());
    return failure();
  }
  const VerifyResult proof = verifyPlan(plan);
  if (!proof.ok()) {
    error = "compiler defect: " + origin + " does not compute its collective: " +
            proof.describe(4);
    return failure();
  }
  return out;
}

/// The plan `algorithm` states directly under a symmetry for `requested`, when it has such a
/// rule for these parameters and the options ask for nothing only the pipeline gives (its IR,
/// what each pass did, slicing, a rank-order check); nothing otherwise.
std::optional<FailureOr<CompiledPlan>>
compileSymmetricIfStated(const CollectiveSpec &requested, const AlgorithmInfo &algorithm,
                         const AlgorithmParams &params, const CompileOptions &options,
                         std::string &error) {
  if (!algorithm.symmetricProgram || options.everyRank || options.keepIR || options.explain ||
      options.rankOrderReductions || options.slices != 1)
    return std::nullopt;
  if (checkAlgorithm(requested, algorithm, params)) return std::nullopt;  // the pipeline says why
  std::optional<SymmetricProgram> form = algorithm.symmetricProgram(requested, params);
  if (!form) return std::nullopt;
  return compileSymmetric(requested, algorithm, params, options, std::move(*form), error);
}

}  // namespace

FailureOr<CompiledPlan> compileCollective(const CollectiveSpec &requested,
                                          const CompileOptions &options, std::string &error) {
  const AlgorithmInfo *algorithm = lookupAlgorithm(options.algorithm, error);
  if (!algorithm) return failure();
  const std::optional<AlgorithmParams> params = resolveParams(algorithm, options, error);
  if (!params) return failure();
  if (compiledAsStages(requested, *algorithm, *params)) {
    FailureOr<CompiledPlan> composed =
        compileComposed(requested, options, *algorithm, *params, error);
    if (succeeded(composed))
      composed->explanation.insert(
          composed->explanation.begin(),
          algorithmSpec(requested, *algorithm, *params).exceedsPositions()
              ? std::to_string(requested.ranks) + " ranks are past the positions the "
                "verifiers index: compiled as stages of their own sizes, each proven on its own"
              : algorithm->name + " " + std::string(toString(requested.kind)) +
                    " is compiled as stages of their own sizes, each proven on its own");
    return composed;
  }
  if (auto symmetric = compileSymmetricIfStated(requested, *algorithm, *params, options, error))
    return std::move(*symmetric);
  CompilerContext ctx;
  OpBuilder builder(&ctx.get());
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module->getBody());
  std::string name = std::string(toString(requested.kind)) + "_" + algorithm->name;
  std::replace(name.begin(), name.end(), '-', '_');
  createCollectiveOp(builder, builder.getUnknownLoc(), requested, name, algorithm->name);
  return runCompilePipeline(*module, algorithm, options, ctx, error);
}

FailureOr<CompiledPlan> compileComposedPlan(const CollectiveSpec &spec,
                                            const CompileOptions &options, std::string &error) {
  const AlgorithmInfo *algorithm = lookupAlgorithm(options.algorithm, error);
  if (!algorithm) return failure();
  if (composedStages(spec.kind).empty()) {
    error = "a composed plan is an allreduce, allgather or reduce_scatter, not " +
            std::string(toString(spec.kind));
    return failure();
  }
  if (!algorithm->composed) {
    std::vector<std::string> composing;
    for (const AlgorithmInfo &a : algorithms())
      if (a.composed) composing.push_back(a.name);
    error = "algorithm '" + algorithm->name + "' is not built from stages (those that are: " +
            joined(composing) + ")";
    return failure();
  }
  const std::optional<AlgorithmParams> params = resolveParams(algorithm, options, error);
  if (!params) return failure();
  if (auto reason = checkAlgorithm(spec, *algorithm, *params)) {
    error = *reason;
    return failure();
  }
  return compileComposed(spec, options, *algorithm, *params, error);
}

FailureOr<CompiledPlan> compileFile(const std::string &path, const std::string &symbol,
                                    const CompileOptions &options, std::string &error) {
  CompilerContext ctx;
  llvm::SourceMgr sourceMgr;
  std::string text;
  try {
    text = readSourceFile(path);
  } catch (const std::runtime_error &e) {
    error = e.what();
    return failure();
  }
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, path), llvm::SMLoc());
  ParserConfig config(&ctx.get());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module) {
    error = ctx.messages(path + ": cannot parse");
    return failure();
  }
  SmallVector<Operation *> candidates, others;
  module->walk([&](Operation *op) {
    if (!isa<CollectiveOp, ScheduleOp, ProgramOp>(op)) return;
    if (!isa<ProgramOp>(op) && (symbol.empty() || cast<SymbolOpInterface>(op).getName() == symbol))
      candidates.push_back(op);
    else
      others.push_back(op);
  });
  if (candidates.size() != 1) {
    error = path + ": " +
            (candidates.empty()
                 ? (symbol.empty() ? std::string("holds no coll.collective or coll.schedule")
                                   : "has no coll.collective or coll.schedule @" + symbol)
                 : "holds " + std::to_string(candidates.size()) +
                       " collectives/schedules: name one with --symbol");
    return failure();
  }
  for (Operation *op : others) op->erase();  // the pipeline compiles what the module holds
  const AlgorithmInfo *algorithm = nullptr;
  if (auto collective = dyn_cast<CollectiveOp>(candidates.front())) {
    std::string name = options.algorithm.empty() ? collective.getAlgorithm().value_or("").str()
                                                 : options.algorithm;
    if (name.empty()) {
      error = path + ": coll.collective @" + collective.getSymName().str() +
              " names no algorithm: add `algorithm \"ring\"` or pass --algorithm";
      return failure();
    }
    algorithm = lookupAlgorithm(name, error);
    if (!algorithm) return failure();
    collective.setAlgorithmAttr(StringAttr::get(&ctx.get(), name));
  } else if (!options.params.empty()) {
    error = path + ": " + options.params.front() +
            ": parameters apply to a collective's algorithm, and the file holds a schedule";
    return failure();
  }
  return runCompilePipeline(*module, algorithm, options, ctx, error);
}

}  // namespace collplan
