// Scale: every allreduce lowering at N=64, a 1024-rank ring, and synth's schedule at 64 and 512.
#include "compiler/Registration.h"
#include "compiler/analysis/CostModel.h"
#include "compiler/analysis/ScheduleVerifier.h"
#include "compiler/lowering/Algorithms.h"
#include "runtime/topology/Resolver.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <benchmark/benchmark.h>
#include <sys/resource.h>

using namespace collplan;

namespace {

struct Context {
  Context() : ctx(mlir::MLIRContext::Threading::DISABLED) {
    mlir::DialectRegistry registry;
    registerAll(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  mlir::MLIRContext ctx;
};

/// Lowers `algorithm` for an allreduce on `ranks` ranks, verifies it and (optionally) costs it.
bool lowerVerify(Context &c, const AlgorithmInfo &algorithm, int ranks, bool cost) {
  mlir::OpBuilder b(&c.ctx);
  auto module = mlir::ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module.getBody());
  CollectiveSpec spec;
  spec.ranks = ranks;
  spec.op = ReduceOp::Sum;
  AlgorithmParams params(algorithm);  // the entry's example where its defaults need a topology
  if (auto bad = params.assign(algorithm.example)) throw std::logic_error(*bad);
  std::string error;
  auto schedule = buildSchedule(b, b.getUnknownLoc(), spec, "s", algorithm, params, error);
  bool ok = mlir::succeeded(schedule) && mlir::succeeded(verifySchedule(*schedule));
  if (ok && cost) benchmark::DoNotOptimize(analyzeCost(*schedule).alphaRounds);
  module.erase();
  return ok;
}

double peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

/// Lowering + verify + cost of every algorithm that implements allreduce, at N = 64.
void BM_EveryAllreduceAlgorithm64(benchmark::State &state) {
  Context c;
  int algorithms = 0, failed = 0;
  for (auto _ : state) {
    algorithms = failed = 0;
    for (const AlgorithmInfo &a : collplan::algorithms())
      if (a.supports(CollectiveKind::AllReduce)) {
        ++algorithms;
        failed += !lowerVerify(c, a, 64, /*cost=*/true);
      }
  }
  state.counters["algorithms"] = algorithms;
  state.counters["failed"] = failed;
}
BENCHMARK(BM_EveryAllreduceAlgorithm64)->Unit(benchmark::kMillisecond)->Iterations(3);

/// A 1024-rank ring allreduce: lowering and verification (4.2 M ops).
void BM_RingAllreduce1024LowerVerify(benchmark::State &state) {
  Context c;
  const AlgorithmInfo *ring = findAlgorithm("ring");
  bool ok = true;
  for (auto _ : state) ok &= lowerVerify(c, *ring, 1024, /*cost=*/false);
  state.counters["ok"] = ok;
  state.counters["peak_rss_MiB"] = peakRssMiB();
}
BENCHMARK(BM_RingAllreduce1024LowerVerify)->Unit(benchmark::kMillisecond)->Iterations(1);

/// synth's schedule for an allgather on a torus of 8 x N/8 ranks: peers, packed trees (default
/// count), channels, the links' list schedule and the level-2 IR, verified: what synthesis
/// costs before the common pipeline (plan-compile adds lowering to programs and the proof).
void BM_SynthAllgatherTorus(benchmark::State &state) {
  Context c;
  const int ranks = int(state.range(0));
  const Topology topo = resolveTopology("torus:8x" + std::to_string(ranks / 8));
  const AlgorithmInfo *synth = findAlgorithm("synth");
  bool ok = true;
  for (auto _ : state) {
    mlir::OpBuilder b(&c.ctx);
    auto module = mlir::ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToEnd(module.getBody());
    CollectiveSpec spec;
    spec.kind = CollectiveKind::AllGather;
    spec.ranks = ranks;
    std::string error;
    auto schedule = buildSchedule(b, b.getUnknownLoc(), spec, "s", *synth,
                                  AlgorithmParams(*synth, &topo), error);
    ok &= mlir::succeeded(schedule) && mlir::succeeded(verifySchedule(*schedule));
    module.erase();
  }
  state.counters["ok"] = ok;
  state.counters["peak_rss_MiB"] = peakRssMiB();
}
BENCHMARK(BM_SynthAllgatherTorus)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
