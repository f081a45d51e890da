// Bucket lookup and per-call dispatch overhead (validation, plan choice, executor loop), and
// the whole small call on two ranks.
#include "collplan.hpp"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/DefaultPlans.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <limits>
#include <unistd.h>

using namespace collplan;

namespace {

/// A table of `n` buckets splitting [0, 2^40] evenly, then [2^40, max].
BucketTable makeTable(int n) {
  BucketTable t;
  t.op = ReduceOp::Sum;
  const uint64_t step = (uint64_t(1) << 40) / uint64_t(n);
  for (int i = 0; i < n; ++i) {
    Bucket b;
    b.minBytes = uint64_t(i) * step + (i ? 1 : 0);
    b.maxBytes = i + 1 == n ? std::numeric_limits<uint64_t>::max() : uint64_t(i + 1) * step;
    b.plan = ringAllReducePlan(1, ReduceOp::Sum);
    b.winner.algorithm = b.plan.algorithm;
    t.buckets.push_back(std::move(b));
  }
  return t;
}

void BM_BucketLookup(benchmark::State &state) {
  const BucketTable table = makeTable(int(state.range(0)));
  uint64_t bytes = 12345, sum = 0;
  for (auto _ : state) {
    sum += table.lookup(bytes).minBytes;
    bytes = bytes * 6364136223846793005ull + 1442695040888963407ull;  // vary the size
    bytes >>= 24;
  }
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_BucketLookup)->Arg(4)->Arg(32)->Arg(256);

/// A whole collplan_allreduce of 8 bytes on a 1-rank communicator: argument checks, plan
/// lookup (built-in plan cache), unit resolution cache, executor loop and an 8-byte copy.
void BM_DispatchAllReduce8B(benchmark::State &state) {
  World world = World::threads(1);
  Comm comm = world.comm(0);
  float in[2] = {1, 2}, out[2];
  for (auto _ : state) {
    comm.allreduce(in, out, 2, COLLPLAN_SUM);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_DispatchAllReduce8B);

/// The same through a bundle: table search, bucket binary search over 32 buckets, prepared
/// program cache.
void BM_DispatchAllReduce8BWithBundle(benchmark::State &state) {
  Bundle bundle;
  bundle.topologyFingerprint = "bench";
  bundle.backend = "cpu-threads";
  bundle.ranks = 1;
  for (int d = 0; d < kNumDTypes; ++d) {
    BucketTable t = makeTable(32);
    t.dtype = DType(d);
    bundle.tables.push_back(std::move(t));
  }
  const std::string path = "/tmp/collplan-bench-bundle-" + std::to_string(getpid()) + ".json";
  saveBundleFile(bundle, path);
  World world = World::threads(1, path.c_str());
  std::remove(path.c_str());
  Comm comm = world.comm(0);
  float in[2] = {1, 2}, out[2];
  for (auto _ : state) {
    comm.allreduce(in, out, 2, COLLPLAN_SUM);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_DispatchAllReduce8BWithBundle);

/// An 8-byte allreduce on two ranks, one per benchmark thread (cpu-threads, one core each on
/// this 2-core machine): the 1-rank path above plus the flag hand-off between two cores, what
/// a job pays per small call. Real time per call, every call waits for the peer's.
void BM_AllReduce8BTwoRanks(benchmark::State &state) {
  static World world = World::threads(2);
  Comm comm = world.comm(state.thread_index());
  float in[2] = {1, 2}, out[2];
  for (auto _ : state) {
    comm.allreduce(in, out, 2, COLLPLAN_SUM);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_AllReduce8BTwoRanks)->Threads(2)->Iterations(200000)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
