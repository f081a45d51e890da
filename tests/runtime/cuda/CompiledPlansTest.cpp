// Every compiled algorithm x collective it implements, with one and two slices, through the
// cuda backend's launch path on N = 2..8 virtual ranks of one device, odd counts, in and out of
// place, on the host emulation of the kernel; as a world of processes, and over several
// devices, on the emulation. (The same on GPU 0: CompiledPlansGpuTest.cpp.)
#include "EmulatedJob.h"
#include "HostTarget.h"
#include "CompiledPlanCheck.h"
#include "LaunchCheck.h"

#include "tests/compiler/ScheduleTestSupport.h"
#include "tuner/measure/DeviceRunner.h"
#include "tuner/measure/PlanSource.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <numeric>
#include <unistd.h>

using namespace collplan;
using namespace collplan::cuda;

namespace {

using Case = collplan::testing::AlgorithmCase;
using test::Placement;
using test::checkEveryPlan;

class CompiledPlans : public ::testing::TestWithParam<Case> {};

TEST_P(CompiledPlans, OnTheEmulation) {
  test::HostTarget target;
  const test::Readback readback{
      [](void *dst, const void *src, size_t bytes) { std::memcpy(dst, src, bytes); },
      [&] { target.synchronize(); }};
  // 4096: ops of whole 16-byte vectors; the odd counts take the element path.
  checkEveryPlan(GetParam(), target, readback, {DType::F32, DType::I32}, {7, 1029, 4096});
}

/// Ranks as processes (CUDA IPC, emulated by threads): everything sent is staged in the
/// sender's arena and read through the receiver's mapping of it.
TEST_P(CompiledPlans, AsProcessesOnTheEmulation) {
  const Case &c = GetParam();
  int world = 0;
  for (int ranks : {4, 5})
    for (const Plan &plan : collplan::testing::compiledPlans(c, ranks))
      for (DType dtype : {DType::F32, DType::BF16}) {
        const measure::BenchCase bc{c.kind, dtype, ReduceOp::Sum, plan.root, ranks};
        for (size_t count : {size_t(1029), size_t(4096)})
          EXPECT_EQ(test::runAsProcesses(bc, plan, count,
                                         "compiled-" + std::to_string(::getpid()) + "-" +
                                             std::to_string(world++)),
                    0u)
              << c.algorithm->name << " " << toString(c.kind) << " N=" << ranks << " root "
              << plan.root << " " << toString(dtype) << " count=" << count;
      }
}

/// Ranks spread over emulated devices (peer devices): each device's ranks are one launch, the
/// launches run together and meet in the FIFOs; through the benchmark's device loop.
TEST_P(CompiledPlans, OnSeveralEmulatedDevices) {
  const Case &c = GetParam();
  const std::vector<std::vector<int>> layouts = {{1, 0, 1, 0}, {0, 1, 2, 0, 1}};
  for (const std::vector<int> &devices : layouts) {
    const int ranks = int(devices.size());
    for (const Plan &plan : collplan::testing::compiledPlans(c, ranks)) {
      const measure::BenchCase bc{c.kind, DType::F32, ReduceOp::Sum, plan.root, ranks};
      const measure::PlanSource source = measure::PlanSource::fromPlan(plan, "compiled", bc);
      const std::vector<measure::SizePoint> sizes = measure::sizePoints(bc, {4116, 65536});
      test::EmulatedJob job(devices);
      measure::LoopSettings settings;
      settings.warmup = 0;
      settings.reps = 1;
      const measure::RankTimes times = measure::runDeviceLoop(job, source, bc, sizes, settings);
      ASSERT_EQ(times.wrong.size(), sizes.size());
      for (size_t i = 0; i < sizes.size(); ++i)
        EXPECT_EQ(times.wrong[i], 0u)
            << c.algorithm->name << " " << toString(c.kind) << " root " << plan.root << " at "
            << sizes[i].bytes << " bytes on " << job.describe();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, CompiledPlans,
                         ::testing::ValuesIn(collplan::testing::everyAlgorithmCase()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return collplan::testing::algorithmCaseName(info.param);
                         });

}  // namespace
