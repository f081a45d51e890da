// Every compiled algorithm x collective it implements, with one and two slices, through the
// cuda backend's launch path on N = 2..8 virtual ranks of one device, odd counts, in and out of
// place: on the host emulation of the kernel (always), and on GPU 0 with every dtype (skipped,
// saying why, where no device is visible); as a world of processes, and over several devices,
// on the emulation.
#include "EmulatedJob.h"
#include "HostTarget.h"
#include "LaunchCheck.h"

#include "tests/compiler/ScheduleTestSupport.h"
#include "tuner/bench/DeviceLoop.h"
#include "tuner/bench/PlanSource.h"

#ifdef COLLPLAN_HAVE_CUDA
#include "runtime/backends/cuda/CudaTarget.h"
#endif

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

/// Every rank of a world on one device of `target`, and the plans it ran (prepared by address,
/// so they live as long as the group).
struct VirtualRanks {
  VirtualRanks(DeviceTarget &target, int ranks) : buffers(target), fifos(target) {
    std::vector<int> all(static_cast<size_t>(ranks));
    std::iota(all.begin(), all.end(), 0);
    group = std::make_unique<LaunchGroup>(target, fifos, table, all, ranks, 30'000'000'000ull);
  }
  test::CheckBuffers buffers;
  FifoStore fifos;
  ConnectionTable table;
  std::unique_ptr<LaunchGroup> group;
  std::deque<Plan> plans;
};

/// Runs every plan of `c` on N = 2..8 ranks for each dtype, count and placement.
void checkEveryPlan(const Case &c, DeviceTarget &target, const test::Readback &readback,
                    const std::vector<DType> &dtypes, const std::vector<size_t> &counts) {
  for (int ranks = 2; ranks <= 8; ++ranks) {
    VirtualRanks world(target, ranks);
    for (Plan &compiled : collplan::testing::compiledPlans(c, ranks)) {
      const Plan &plan = world.plans.emplace_back(std::move(compiled));
      for (DType dtype : dtypes) {
        const ReduceOp op = dtype == DType::I32 ? ReduceOp::Max : ReduceOp::Sum;
        const bench::BenchCase bc{c.kind, dtype, op, plan.root, ranks};
        Plan typed = plan;
        if (needsReduceOp(c.kind)) typed.op = op;
        const Plan &run = op == ReduceOp::Sum ? plan : world.plans.emplace_back(std::move(typed));
        for (size_t count : counts)
          for (Placement placement : {Placement::OutOfPlace, Placement::InPlace})
            EXPECT_EQ(
                test::runPlanChecked(world.buffers, *world.group, readback, run, bc, count, placement), 0u)
                << c.algorithm->name << " " << toString(c.kind) << " N=" << ranks << " root "
                << plan.root << " " << toString(dtype) << " count=" << count
                << " placement=" << int(placement);
      }
    }
  }
}

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
        const bench::BenchCase bc{c.kind, dtype, ReduceOp::Sum, plan.root, ranks};
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
      const bench::BenchCase bc{c.kind, DType::F32, ReduceOp::Sum, plan.root, ranks};
      const bench::PlanSource source = bench::PlanSource::fromPlan(plan, "compiled", bc);
      const std::vector<bench::SizePoint> sizes = bench::sizePoints(bc, {4116, 65536});
      test::EmulatedJob job(devices);
      bench::LoopSettings settings;
      settings.warmup = 0;
      settings.reps = 1;
      const bench::RankTimes times = bench::runDeviceLoop(job, source, bc, sizes, settings);
      ASSERT_EQ(times.wrong.size(), sizes.size());
      for (size_t i = 0; i < sizes.size(); ++i)
        EXPECT_EQ(times.wrong[i], 0u)
            << c.algorithm->name << " " << toString(c.kind) << " root " << plan.root << " at "
            << sizes[i].bytes << " bytes on " << job.describe();
    }
  }
}

TEST_P(CompiledPlans, OnTheGpu) {
#ifdef COLLPLAN_HAVE_CUDA
  std::string why;
  if (visibleDevices(&why) == 0) GTEST_SKIP() << "no CUDA device here (" << why << ")";
  CudaTarget target(0);
  const test::Readback readback{
      [&](void *dst, const void *src, size_t bytes) { target.copyOut(dst, src, bytes); },
      [&] { target.synchronize(nullptr); }};
  checkEveryPlan(GetParam(), target, readback,
                 {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I32, DType::I64,
                  DType::U8},
                 {1, 7, 1029, 4096});
  // Ops of several blocks per channel: two dtypes suffice (the host's check of every element
  // costs more than the launch).
  checkEveryPlan(GetParam(), target, readback, {DType::F32, DType::BF16}, {size_t(1) << 18});
#else
  GTEST_SKIP() << "this build has no cuda backend (nvcc was not found at configure time)";
#endif
}

INSTANTIATE_TEST_SUITE_P(Algorithms, CompiledPlans,
                         ::testing::ValuesIn(collplan::testing::everyAlgorithmCase()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return collplan::testing::algorithmCaseName(info.param);
                         });

}  // namespace
