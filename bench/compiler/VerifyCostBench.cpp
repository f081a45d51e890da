// Benchmarks coll-verify and coll-cost on ring allreduce schedules of growing size.
#include "ScheduleTestSupport.h"

#include "compiler/analysis/CostModel.h"
#include "compiler/analysis/ScheduleVerifier.h"

#include <benchmark/benchmark.h>

using collplan::testing::IRFixture;

namespace {

void BM_VerifyRingAllreduce(benchmark::State &state) {
  IRFixture fixture;
  auto module = fixture.parse(collplan::testing::ringAllreduceText(int(state.range(0))));
  auto schedule = IRFixture::firstSchedule(*module);
  for (auto _ : state) benchmark::DoNotOptimize(collplan::verifySchedule(schedule));
  state.counters["ops"] = double(schedule.getBodyBlock().getOperations().size());
}
BENCHMARK(BM_VerifyRingAllreduce)->Arg(64)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond);

void BM_CostRingAllreduce(benchmark::State &state) {
  IRFixture fixture;
  auto module = fixture.parse(collplan::testing::ringAllreduceText(int(state.range(0))));
  auto schedule = IRFixture::firstSchedule(*module);
  for (auto _ : state) benchmark::DoNotOptimize(collplan::analyzeCost(schedule).alphaRounds);
}
BENCHMARK(BM_CostRingAllreduce)->Arg(64)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
