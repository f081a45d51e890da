// verifyPlan's time and memory on ring and recursive-doubling allreduce plans at N = 64, 256
// and 1024 (targets: N = 64 under 20 ms, N = 1024 under 1 s).
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanVerify.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

using namespace collplan;

namespace {

/// Recursive-doubling allreduce for a power-of-two `ranks`: in round k rank r exchanges its
/// whole value with r xor 2^k and folds the two, the lower rank's first (so both partners build
/// the same tree).
Plan recursiveDoublingPlan(int ranks) {
  Plan plan;
  plan.collective = CollectiveKind::AllReduce;
  plan.ranks = ranks;
  plan.op = ReduceOp::Sum;
  plan.algorithm = "recursive-doubling";
  plan.units = 1;
  plan.programs.resize(size_t(ranks));
  for (int r = 0; r < ranks; ++r) {
    std::vector<PlanOp> &ops = plan.programs[size_t(r)].channel(0);
    for (int bit = 1; bit < ranks; bit <<= 1) {
      const int partner = r ^ bit;
      const BufRef value{bit == 1 ? BufferKind::In : BufferKind::Out, 0, 1};
      PlanOp send;
      send.kind = OpKind::Send;
      send.srcs = {value};
      send.sends = {partner};
      PlanOp fold;
      fold.kind = OpKind::RecvReduce;
      fold.srcs = {value};
      fold.recv = partner;
      fold.recvPos = partner < r ? 0 : 1;
      fold.dsts = {BufRef{BufferKind::Out, 0, 1}};
      ops.push_back(send);
      ops.push_back(fold);
    }
  }
  return plan;
}

double peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;
}

void verify(benchmark::State &state, const Plan &plan) {
  for (auto _ : state) {
    VerifyResult result = verifyPlan(plan);
    if (!result.ok()) state.SkipWithError(result.describe().c_str());
    benchmark::DoNotOptimize(result);
  }
  size_t ops = 0;
  for (const RankProgram &p : plan.programs) ops += p.numOps();
  state.counters["ops"] = double(ops);
  state.counters["peak_rss_MiB"] = peakRssMiB();  // the process's peak so far (sizes ascend)
}

void BM_VerifyRingAllReduce(benchmark::State &state) {
  verify(state, ringAllReducePlan(int(state.range(0)), ReduceOp::Sum));
}
/// The same ring plan not marked inplace_safe: the cost of everything but the in-place proof.
void BM_VerifyRingAllReduceWithoutInPlace(benchmark::State &state) {
  Plan plan = ringAllReducePlan(int(state.range(0)), ReduceOp::Sum);
  plan.inplaceSafe = false;
  verify(state, plan);
}
void BM_VerifyRecursiveDoublingAllReduce(benchmark::State &state) {
  verify(state, recursiveDoublingPlan(int(state.range(0))));
}

BENCHMARK(BM_VerifyRingAllReduce)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VerifyRingAllReduceWithoutInPlace)
    ->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VerifyRecursiveDoublingAllReduce)
    ->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
