// DeviceWorld and the benchmark's device loop on emulated devices: virtual ranks on one device,
// and ranks spread over several devices whose launches run together (peer devices), checked
// against the host reference for every size of a sweep.
#include "EmulatedJob.h"

#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/DefaultPlans.h"
#include "tuner/measure/DeviceRunner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>

using namespace collplan;
using namespace collplan::cuda;

namespace {

/// The built-in plans' sweep on a job of `deviceOfRank`: every size checked, `reps` timings
/// each. A job per sweep: a world keeps what it prepared for a plan by the plan's address, so
/// the plans must outlive it.
void expectSweepCorrect(const std::vector<int> &deviceOfRank, measure::BenchCase c) {
  c.ranks = int(deviceOfRank.size());
  const measure::PlanSource source = measure::PlanSource::builtIn(c);
  const std::vector<measure::SizePoint> sizes = measure::sizePoints(c, {8, 1000, 40000, 300000});
  test::EmulatedJob job(deviceOfRank);
  measure::LoopSettings settings;
  settings.warmup = 1;
  settings.reps = 2;
  std::vector<size_t> progress;
  const measure::RankTimes times = measure::runDeviceLoop(
      job, source, c, sizes, settings, [&](size_t i, const measure::SizePoint &) { progress.push_back(i); });
  ASSERT_EQ(times.wrong.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(times.wrong[i], 0u) << measure::describe(c) << " at " << sizes[i].bytes << " bytes on "
                                  << job.describe();
    EXPECT_EQ(times.seconds[i].size(), 2u);
  }
  EXPECT_EQ(progress.size(), sizes.size());
}

TEST(DeviceWorld, VirtualRanksOnOneDevice) {
  const std::vector<int> devices = {0, 0, 0, 0, 0};
  test::EmulatedJob job(devices);
  EXPECT_EQ(job.world().mode(), DeviceMode::VirtualRanks);
  EXPECT_EQ(job.describe(), "5 virtual ranks on host emulation");
  EXPECT_EQ(job.opened(), std::vector<int>{0});
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                              CollectiveKind::ReduceScatter, CollectiveKind::AllToAll,
                              CollectiveKind::Broadcast})
    expectSweepCorrect(devices, measure::BenchCase{kind, DType::BF16, ReduceOp::Sum, 0, 0});
}

/// Each device's ranks are one launch; launches of different devices run together and meet in
/// the FIFOs, as kernels of peer devices do.
TEST(DeviceWorld, RanksSpreadOverDevicesRunTogether) {
  const std::vector<int> devices = {1, 0, 1, 2, 0, 2};
  test::EmulatedJob job(devices);
  EXPECT_EQ(job.world().mode(), DeviceMode::PeerDevices);
  EXPECT_EQ(job.opened(), (std::vector<int>{1, 0, 2}));  // in order of first use
  EXPECT_EQ(job.world().groupOf(3), 2u);
  EXPECT_EQ(job.describe(), "6 ranks on 3 devices (peer devices): host emulation, host "
                            "emulation, host emulation");
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                              CollectiveKind::Reduce, CollectiveKind::Scatter, CollectiveKind::Barrier})
    expectSweepCorrect(devices, measure::BenchCase{kind, DType::F32, ReduceOp::Max, 4, 0});
}

TEST(DeviceWorld, OneRankPerDevice) {
  expectSweepCorrect({0, 1, 2, 3}, measure::BenchCase{CollectiveKind::AllReduce, DType::I64, ReduceOp::Sum, 0, 0});
}

/// A call whose ranks disagree (here: a rank missing from a device's launch) is refused before
/// anything is launched.
TEST(DeviceWorld, RefusesCallsThatDoNotMatchItsRanks) {
  test::EmulatedJob job({0, 1});
  const Plan plan = defaultPlan(CollectiveKind::AllReduce, 2, ReduceOp::Sum, 0);
  try {
    job.world().enqueue(plan, std::vector<CallBuffers>(1), {nullptr, nullptr});
    FAIL() << "no error";
  } catch (const RuntimeError &e) {
    EXPECT_STREQ(e.what(), "a call of 2 ranks on 2 devices got 1 calls and 2 streams");
  }
  EXPECT_THROW(DeviceWorld({}, nullptr, 1), RuntimeError);
}

TEST(DeviceWorld, TimeoutFromTheWaitPolicy) {
  WaitPolicy policy;
  policy.timeout = std::chrono::milliseconds(2500);
  EXPECT_EQ(deviceTimeoutNs(policy), 2'500'000'000ull);
  policy.timeout = std::chrono::milliseconds(0);
  EXPECT_EQ(deviceTimeoutNs(policy), std::numeric_limits<uint64_t>::max());
}

}  // namespace
