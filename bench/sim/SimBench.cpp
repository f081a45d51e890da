// Google Benchmark of the simulator at scale: a 1024-rank, 4-slice ring allreduce of 1 GiB.
#include "SimTestPlans.h"
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Generators.h"

#include <benchmark/benchmark.h>

namespace collplan {
namespace {

constexpr int kRanks = 1024;
constexpr int kSlices = 4;
constexpr uint64_t kBytes = uint64_t(1) << 30;

/// A ring of 1024 chips (one rank each): 100 GB/s 1 us links, 1 TB/s memory (the generator's
/// generic accelerator).
const Topology &ringTopology() {
  static const Topology topo = ring(kRanks);
  return topo;
}

const Plan &ringPlan() {
  static const Plan plan = simtest::ringAllReduce(kRanks, kSlices);
  return plan;
}

void simulateRing(benchmark::State &state, SimOptions options) {
  const Plan &plan = ringPlan();
  const Topology &topo = ringTopology();
  SimResult result;
  for (auto _ : state) {
    result = simulate(plan, topo, kBytes, options);
    benchmark::DoNotOptimize(result.totalUs);
  }
  state.counters["simulated_us"] = result.totalUs;
  state.counters["transfers"] = double(result.transfers);
  state.counters["rate_updates"] = double(result.rateUpdates);
}

/// Everything modelled: link sharing, device memory and reduction (the default options).
void BM_RingAllReduce1024x4Slices1GiB(benchmark::State &state) {
  simulateRing(state, SimOptions{});
}
/// The α-β mode (no sharing, no memory): the event loop alone.
void BM_RingAllReduce1024x4Slices1GiB_AlphaBeta(benchmark::State &state) {
  simulateRing(state, SimOptions{false, false});
}

BENCHMARK(BM_RingAllReduce1024x4Slices1GiB)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_RingAllReduce1024x4Slices1GiB_AlphaBeta)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace collplan

BENCHMARK_MAIN();
