// Instantiation and proof of each example template of plans/examples/templates at N = 64, 256.
#include "compiler/Registration.h"
#include "compiler/analysis/ScheduleVerifier.h"
#include "compiler/lowering/Algorithms.h"
#include "compiler/template/Instantiate.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

using namespace collplan;

namespace {

struct Example {
  const char *file;
  const char *groupParam;  ///< set to 8 at N = 64 and 16 at N = 256, or null
};

const Example kExamples[] = {
    {"ring-allreduce.mlir", nullptr},
    {"recursive-doubling-allreduce.mlir", nullptr},
    {"pairwise-alltoall.mlir", nullptr},
    {"grid-allreduce.mlir", "rows"},
    {"hierarchical-allreduce.mlir", "ranks-per-node"},
};

/// Parses the example, then instantiates and verifies it once per iteration.
void BM_InstantiateAndVerify(benchmark::State &state) {
  const Example &example = kExamples[state.range(0)];
  const int ranks = int(state.range(1));
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  mlir::DialectRegistry registry;
  registerAll(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  std::ifstream file(std::string(COLLPLAN_SOURCE_DIR) + "/plans/examples/templates/" +
                     example.file);
  std::stringstream text;
  text << file.rdbuf();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text.str(), &ctx);
  if (!module) return state.SkipWithError("the example does not parse");
  auto tmpl = *module->getOps<mlir::coll::TemplateOp>().begin();
  CollectiveSpec spec;
  spec.kind = CollectiveKind(tmpl.getKind());
  spec.ranks = spec.chunks = ranks;
  if (needsReduceOp(spec.kind)) spec.op = ReduceOp::Sum;
  std::map<std::string, int64_t> given;
  if (example.groupParam) given[example.groupParam] = ranks == 64 ? 8 : 16;
  size_t ops = 0;
  for (auto _ : state) {
    mlir::OpBuilder builder(tmpl);
    auto schedule = instantiateTemplate(builder, tmpl, spec, given, nullptr, "instance");
    if (mlir::failed(schedule) || mlir::failed(verifySchedule(*schedule)))
      return state.SkipWithError("the instance does not verify");
    ops = schedule->getBodyBlock().getOperations().size();
    (*schedule)->erase();
  }
  state.SetLabel(std::string(example.file) + ", " + std::to_string(ops) + " ops");
}

BENCHMARK(BM_InstantiateAndVerify)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {64, 256}})
    ->Unit(benchmark::kMillisecond);

/// The baseline in the same run: the C++ ring lowering of the same allreduce, built and verified.
void BM_RingLoweringAndVerify(benchmark::State &state) {
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  mlir::DialectRegistry registry;
  registerAll(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  mlir::OpBuilder b(&ctx);
  auto module = mlir::ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module.getBody());
  CollectiveSpec spec;
  spec.ranks = int(state.range(0));
  spec.op = ReduceOp::Sum;
  const AlgorithmInfo &ring = *findAlgorithm("ring");
  for (auto _ : state) {
    std::string error;
    auto schedule = buildSchedule(b, b.getUnknownLoc(), spec, "s", ring, AlgorithmParams(ring),
                                  error);
    if (mlir::failed(schedule) || mlir::failed(verifySchedule(*schedule)))
      return state.SkipWithError("the ring lowering does not verify");
    (*schedule)->erase();
  }
  module.erase();
}

BENCHMARK(BM_RingLoweringAndVerify)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
