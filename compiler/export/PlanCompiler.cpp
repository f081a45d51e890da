// compileCollective / compileFile: every compiler stage in order, with diagnostics collected.
#include "compiler/export/PlanCompiler.h"

#include "compiler/Registration.h"
#include "compiler/analysis/ScheduleVerifier.h"
#include "compiler/export/CoalesceTransfers.h"
#include "compiler/export/HoistSends.h"
#include "compiler/export/ProgramToPlan.h"
#include "compiler/export/ScheduleToProgram.h"
#include "compiler/lowering/Slicing.h"
#include "runtime/topology/Topology.h"
#include "dialects/coll/CollOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// An MLIR context with the dialect loaded that gathers diagnostics as "file:line:col: msg".
class CompilerContext {
public:
  CompilerContext() : context_(MLIRContext::Threading::DISABLED) {
    DialectRegistry registry;
    registerAll(registry);
    context_.appendDialectRegistry(registry);
    context_.loadAllAvailableDialects();
    handler_ = std::make_unique<ScopedDiagnosticHandler>(&context_, [this](Diagnostic &diag) {
      std::string line;
      llvm::raw_string_ostream os(line);
      if (auto fl = dyn_cast<FileLineColLoc>(diag.getLocation()))
        os << fl.getFilename().getValue() << ":" << fl.getLine() << ":" << fl.getColumn() << ": ";
      os << (diag.getSeverity() == DiagnosticSeverity::Error ? "error: " : "note: ")
         << diag.str();
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

private:
  MLIRContext context_;
  std::unique_ptr<ScopedDiagnosticHandler> handler_;
  std::string messages_;
};

nlohmann::json paramsToJson(const AlgorithmParams &p, int slices) {
  nlohmann::json j = nlohmann::json::object();
  AlgorithmParams defaults;
  if (p.channels != defaults.channels) j["channels"] = p.channels;
  if (p.bidirectional) j["bidirectional"] = true;
  if (!p.order.empty()) j["order"] = p.order;
  if (p.fanout != defaults.fanout) j["fanout"] = p.fanout;
  if (p.pipeline != defaults.pipeline) j["pipeline"] = p.pipeline;
  if (p.ranksPerDevice != defaults.ranksPerDevice) j["ranks_per_device"] = p.ranksPerDevice;
  if (!p.dims.empty()) j["dims"] = p.dims;
  if (p.ranksPerNode != defaults.ranksPerNode) j["ranks_per_node"] = p.ranksPerNode;
  if (p.inter != defaults.inter) j["inter"] = p.inter;
  if (slices > 1) j["pipeline_slices"] = slices;
  if (p.topology) j["topology"] = p.topology->name;
  return j;
}

/// Prints a verified op in its custom form (both levels were verified before printing).
std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, OpPrintingFlags().assumeVerified());
  return text + "\n";
}

/// Stages shared by both entry points, from a schedule in a live module.
FailureOr<CompiledPlan> compileSchedule(ScheduleOp schedule, const CompileOptions &options,
                                        CompilerContext &ctx, std::string &error) {
  CompiledPlan out;
  auto explain = [&](const std::string &line) {
    if (options.explain) out.explanation.push_back(line);
  };
  CollectiveSpec spec = CollectiveSpec::fromOp(schedule);
  size_t ops = schedule.getBodyBlock().getOperations().size();
  explain("lower: @" + schedule.getSymName().str() + ": " + spec.describe() + ", a schedule of " +
          std::to_string(ops) + " ops");
  if (options.slices < 1) {
    error = "slices must be at least 1 (got " + std::to_string(options.slices) + ")";
    return failure();
  }
  if (options.slices > 1 && spec.kind != CollectiveKind::Barrier) {
    sliceSchedule(schedule, options.slices);
    explain("slice: every chunk cut into " + std::to_string(options.slices) + " slices (" +
            std::to_string(schedule.getBodyBlock().getOperations().size()) + " ops)");
  }
  if (failed(verifySchedule(schedule))) {
    error = ctx.messages("coll-verify failed");
    return failure();
  }
  explain("verify: every output holds exactly its contributions, in one reduction order on "
          "all ranks");
  out.cost = analyzeCost(schedule);
  explain("cost: " + std::to_string(out.cost.alphaRounds) + " alpha rounds, beta " +
          std::to_string(out.cost.beta) + ", " + std::to_string(out.cost.transfers) +
          " transfers");
  assignSteps(schedule);
  explain("steps: ops ordered by their port-model round");
  if (options.keepIR) out.scheduleIR = printOp(schedule);
  auto program = lowerScheduleToProgram(schedule);
  if (succeeded(program)) {
    // Hoisting first lines up each round's sends (coalesceTransfers hoists its merged ones).
    const unsigned hoisted = hoistSends(*program);
    const unsigned coalesced = coalesceTransfers(*program);
    explain("coalesce: " + std::to_string(coalesced) +
            " transfers joined to another one of the same round and peers");
    explain("hoist: " + std::to_string(hoisted) +
            " sends published before receives they do not depend on");
  }
  if (failed(program) || failed(checkProgram(*program))) {
    error = ctx.messages("lowering to per-rank programs failed");
    return failure();
  }
  out.plan = programToPlan(*program);
  out.plan.params.update(paramsToJson(options.params, options.slices));
  out.plan.predicted = {double(out.cost.alphaRounds), out.cost.beta};
  size_t instructions = 0;
  for (const RankProgram &p : out.plan.programs) instructions += p.ops.size();
  explain("program: " + std::to_string(instructions) + " instructions over " +
          std::to_string(out.plan.ranks) + " ranks, " + std::to_string(out.plan.units) +
          " units, scratch " + std::to_string(out.plan.scratchUnits) + " units, " +
          (out.plan.inplaceSafe ? "in-place safe" : "in-place calls staged"));
  explain("check: transfers matched, buffers in range, deadlock-free");
  if (options.keepIR) out.programIR = printOp(*program);
  return out;
}

const AlgorithmInfo *lookupAlgorithm(StringRef name, std::string &error) {
  const AlgorithmInfo *algorithm = findAlgorithm(name);
  if (!algorithm)
    error = "unknown algorithm '" + name.str() + "' (known: " + algorithmNames() + ")";
  return algorithm;
}

}  // namespace

FailureOr<CompiledPlan> compileCollective(const CollectiveSpec &requested,
                                          const CompileOptions &options, std::string &error) {
  const AlgorithmInfo *algorithm = lookupAlgorithm(options.algorithm, error);
  if (!algorithm) return failure();
  CompilerContext ctx;
  OpBuilder builder(&ctx.get());
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module->getBody());
  std::string name = std::string(toString(requested.kind)) + "_" + algorithm->name;
  std::replace(name.begin(), name.end(), '-', '_');
  auto schedule = buildSchedule(builder, builder.getUnknownLoc(), requested, name, *algorithm,
                                options.params, error);
  if (failed(schedule)) return failure();
  return compileSchedule(*schedule, options, ctx, error);
}

FailureOr<CompiledPlan> compileFile(const std::string &path, const std::string &symbol,
                                    const CompileOptions &options, std::string &error) {
  CompilerContext ctx;
  llvm::SourceMgr sourceMgr;
  std::string includeError;
  if (!sourceMgr.AddIncludeFile(path, llvm::SMLoc(), includeError)) {
    error = path + ": cannot read the file";
    return failure();
  }
  ParserConfig config(&ctx.get());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module) {
    error = ctx.messages(path + ": cannot parse");
    return failure();
  }
  SmallVector<Operation *> candidates;
  module->walk([&](Operation *op) {
    if (!isa<CollectiveOp, ScheduleOp>(op)) return;
    if (symbol.empty() || cast<SymbolOpInterface>(op).getName() == symbol)
      candidates.push_back(op);
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
  ScheduleOp schedule = dyn_cast<ScheduleOp>(candidates.front());
  if (auto collective = dyn_cast<CollectiveOp>(candidates.front())) {
    std::string name = options.algorithm.empty() ? collective.getAlgorithm().value_or("").str()
                                                 : options.algorithm;
    if (name.empty()) {
      error = path + ": coll.collective @" + collective.getSymName().str() +
              " names no algorithm: add `algorithm \"ring\"` or pass --algorithm";
      return failure();
    }
    const AlgorithmInfo *algorithm = lookupAlgorithm(name, error);
    if (!algorithm) return failure();
    OpBuilder builder(collective);
    auto built = buildSchedule(builder, collective.getLoc(), CollectiveSpec::fromOp(collective),
                               collective.getSymName(), *algorithm, options.params, error);
    if (failed(built)) {
      collective.emitError() << error;
      error = ctx.messages(error);
      return failure();
    }
    collective.erase();
    schedule = *built;
  }
  return compileSchedule(schedule, options, ctx, error);
}

}  // namespace collplan
