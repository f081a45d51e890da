// The cuda backend's launch logic and kernel protocol, run on the host emulation: every
// built-in plan and every plan of the shipped bundles computes its collective on N = 2..8
// virtual ranks, for every dtype, odd counts, in place, with one or several blocks per channel.
#include "HostTarget.h"
#include "LaunchCheck.h"

#include "runtime/backends/cuda/LaunchGroup.h"
#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/DefaultPlans.h"
#include "tuner/measure/CheckData.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <numeric>

using namespace collplan;
using namespace collplan::cuda;

namespace {

using test::Placement;

/// Every rank of a world on one emulated device.
struct World {
  explicit World(int ranks, uint32_t resident = 512, uint64_t timeoutNs = 30'000'000'000ull)
      : target(resident), buffers(target), fifos(target) {
    std::vector<int> all(size_t(ranks), 0);
    std::iota(all.begin(), all.end(), 0);
    group = std::make_unique<LaunchGroup>(target, fifos, table, all, ranks, timeoutNs);
  }
  test::HostTarget target;
  test::CheckBuffers buffers;
  FifoStore fifos;
  ConnectionTable table;
  std::unique_ptr<LaunchGroup> group;
  /// The group prepares each plan once, by address: plans live as long as the world.
  std::deque<Plan> plans;
  const Plan &keep(const Plan &plan) { return plans.emplace_back(plan); }
};

/// Runs `plan` once for `c` on every rank of `world` and returns the wrong elements over ranks.
uint64_t runChecked(World &world, const Plan &plan, const measure::BenchCase &c, size_t count,
                    Placement placement) {
  const test::Readback readback{
      [](void *dst, const void *src, size_t bytes) { std::memcpy(dst, src, bytes); },
      [&] { world.target.synchronize(); }};
  return test::runPlanChecked(world.buffers, *world.group, readback, world.keep(plan), c, count,
                              placement);
}

std::string describe(const Plan &plan, const measure::BenchCase &c, size_t count, Placement p) {
  return plan.algorithm + " " + std::string(toString(c.kind)) + " N=" + std::to_string(c.ranks) +
         " " + std::string(toString(c.dtype)) + " " + std::string(toString(c.op)) + " count=" +
         std::to_string(count) + " placement=" + std::to_string(int(p));
}

TEST(CudaEmulated, EveryBuiltInPlanEveryDtypeOddCountsInPlace) {
  for (int n = 2; n <= 8; ++n) {
    World world(n);
    for (const BuiltInPlan &built : builtInPlans())
      for (CollectiveKind kind : built.kinds) {
        const DType dtypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16,
                                DType::I32, DType::I64, DType::U8};
        for (DType dtype : dtypes) {
          measure::BenchCase c{kind, dtype, dtype == DType::I32 ? ReduceOp::Max : ReduceOp::Sum,
                             n - 1, n};
          const Plan plan = built.make(kind, n, c.op, c.root, -1);
          // 4096: ops of whole 16-byte vectors; the odd counts take the element path.
          for (size_t count : {size_t(1), size_t(7), size_t(1029), size_t(4096)})
            for (Placement p : {Placement::OutOfPlace, Placement::InPlace, Placement::SameStart})
              EXPECT_EQ(runChecked(world, plan, c, count, p), 0u) << describe(plan, c, count, p);
        }
      }
  }
}

TEST(CudaEmulated, ReductionOpsMatchTheHostReference) {
  World world(5);
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max})
    for (DType dtype : {DType::F16, DType::BF16, DType::U8, DType::I64, DType::F64}) {
      measure::BenchCase c{CollectiveKind::AllReduce, dtype, op, 0, 5};
      const Plan plan = twoShotAllReducePlan(5, op);
      EXPECT_EQ(runChecked(world, plan, c, 333, Placement::OutOfPlace), 0u)
          << describe(plan, c, 333, Placement::OutOfPlace);
    }
}

/// Several blocks per channel split each op; the last of them posts.
TEST(CudaEmulated, SeveralBlocksPerChannel) {
  for (const char *blocks : {"2", "3"}) {
    ::setenv("COLLPLAN_CUDA_BLOCKS_PER_CHANNEL", blocks, 1);
    World world(4);
    ::unsetenv("COLLPLAN_CUDA_BLOCKS_PER_CHANNEL");
    measure::BenchCase c{CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum, 0, 4};
    const Plan plan = ringAllReducePlan(4, ReduceOp::Sum);
    for (size_t count : {size_t(3), size_t(4099)}) {
      EXPECT_EQ(runChecked(world, plan, c, count, Placement::InPlace), 0u) << blocks;
      EXPECT_EQ(world.group->lastBlocksPerChannel(), uint32_t(std::atoi(blocks)));
    }
  }
}

/// The shipped bundles hold compiled plans with several channels, `after` orderings and fused
/// chains: every one of them, on the emulation.
TEST(CudaEmulated, EveryPlanOfTheShippedBundles) {
  for (const char *name : {"nvswitch-h100", "trn2", "pcie-7", "cluster-4"}) {
    const Bundle bundle =
        loadBundleFile(std::string(COLLPLAN_SOURCE_DIR) + "/plans/bundles/" + name + "/bundle.json");
    if (bundle.ranks > kMaxLaunchRanks) continue;
    World world(bundle.ranks);
    size_t plans = 0;
    for (const BucketTable &table : bundle.tables)
      for (const Bucket &bucket : table.buckets) {
        measure::BenchCase c{table.collective, table.dtype, table.op.value_or(ReduceOp::Sum),
                           bucket.plan.root, bundle.ranks};
        for (size_t count : {size_t(5), size_t(2053)})
          EXPECT_EQ(runChecked(world, bucket.plan, c, count, Placement::OutOfPlace), 0u)
              << name << ": " << describe(bucket.plan, c, count, Placement::OutOfPlace);
        ++plans;
      }
    EXPECT_GT(plans, 0u) << name;
  }
}

TEST(CudaEmulated, CountersCarryOverFromCallToCall) {
  World world(3);
  measure::BenchCase c{CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum, 0, 3};
  const Plan ring = ringAllReducePlan(3, ReduceOp::Sum);
  const Plan direct = twoShotAllReducePlan(3, ReduceOp::Sum);
  for (int call = 0; call < 20; ++call)
    ASSERT_EQ(runChecked(world, call % 3 ? ring : direct, c, 100 + size_t(call), Placement::OutOfPlace), 0u)
        << "call " << call;
  EXPECT_EQ(world.target.launches(), 20u);
}

/// A captured CUDA graph replays with the buffers of the launch it captured: a later, bigger
/// call must not free them. They go with the world.
TEST(CudaEmulated, BuffersAnEarlierLaunchUsedOutliveABiggerCall) {
  auto world = std::make_unique<World>(3);
  measure::BenchCase c{CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum, 0, 3};
  const Plan &plan = world->keep(ringAllReducePlan(3, ReduceOp::Sum));
  constexpr int kStaging = int(Space::Staging);  // the ring's reduced values are staged to be sent
  world->target.setCapturing(true);
  ASSERT_EQ(runChecked(*world, plan, c, 33, Placement::OutOfPlace), 0u);
  world->target.setCapturing(false);
  const LaunchArgs small = world->target.lastLaunch();
  ASSERT_EQ(runChecked(*world, plan, c, 1 << 20, Placement::OutOfPlace), 0u);
  const LaunchArgs big = world->target.lastLaunch();
  for (int r = 0; r < 3; ++r) {
    ASSERT_NE(small.bases[r][kStaging], nullptr) << "rank " << r << ": the test needs staging";
    EXPECT_NE(small.bases[r][kStaging], big.bases[r][kStaging]) << "rank " << r << ": no growth";
    EXPECT_TRUE(world->target.isLive(small.bases[r][kStaging])) << "rank " << r << ": freed";
  }
  ASSERT_EQ(runChecked(*world, plan, c, 33, Placement::OutOfPlace), 0u);
  world->group.reset();  // the group frees every buffer it allocated, retired ones included
  for (int r = 0; r < 3; ++r)
    for (const LaunchArgs *launch : {&small, &big})
      EXPECT_FALSE(world->target.isLive(launch->bases[r][kStaging])) << "rank " << r << ": leaked";
}

/// A buffer that cannot grow (the device is out of memory) fails the call with the device's
/// reason, and the world still ends cleanly: the buffer it outgrew is freed once, not twice.
TEST(CudaEmulated, OutOfMemoryWhileGrowingFailsTheCallAndFreesEachBufferOnce) {
  auto world = std::make_unique<World>(3);
  measure::BenchCase c{CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum, 0, 3};
  const Plan &plan = world->keep(ringAllReducePlan(3, ReduceOp::Sum));
  ASSERT_EQ(runChecked(*world, plan, c, 33, Placement::OutOfPlace), 0u);
  // The check's own buffers for the bigger call first, then no more room for the plan's.
  world->buffers.forRank(0, 64u << 20);
  world->buffers.forRank(1, 64u << 20);
  world->buffers.forRank(2, 64u << 20);
  world->target.failAllocationsOver(1 << 20);
  try {
    runChecked(*world, plan, c, 1 << 20, Placement::OutOfPlace);
    FAIL() << "a call whose buffers cannot grow succeeded";
  } catch (const RuntimeError &e) {
    EXPECT_EQ(e.code(), ErrorCode::System);
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
  }
  world->group.reset();  // HostTarget aborts on a double free
  EXPECT_EQ(world->target.liveAllocations(), 3u + 1u) << "the check's 3 buffers and the FIFOs";
}

/// Without a captured launch nothing can replay an outgrown buffer: a bigger call frees it, so
/// a sweep up to 1 GiB keeps one buffer per rank, not every size it passed.
TEST(CudaEmulated, BuffersABiggerCallOutgrowsAreFreedWhenNothingWasCaptured) {
  World world(3);
  measure::BenchCase c{CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum, 0, 3};
  const Plan &plan = world.keep(ringAllReducePlan(3, ReduceOp::Sum));
  constexpr int kStaging = int(Space::Staging);
  ASSERT_EQ(runChecked(world, plan, c, 33, Placement::OutOfPlace), 0u);
  const LaunchArgs small = world.target.lastLaunch();
  ASSERT_EQ(runChecked(world, plan, c, 1 << 20, Placement::OutOfPlace), 0u);
  for (int r = 0; r < 3; ++r) {
    ASSERT_NE(small.bases[r][kStaging], nullptr) << "rank " << r << ": the test needs staging";
    EXPECT_FALSE(world.target.isLive(small.bases[r][kStaging])) << "rank " << r << ": kept";
  }
}

/// A launch that holds every rank of its world needs its atomics ordered on its device only
/// (device scope, far cheaper on a GPU); one whose peers run elsewhere needs system scope.
TEST(CudaEmulated, AtomicsAreDeviceScopedWhenTheLaunchHoldsEveryRank) {
  World world(3);
  measure::BenchCase c{CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum, 0, 3};
  ASSERT_EQ(runChecked(world, ringAllReducePlan(3, ReduceOp::Sum), c, 64, Placement::OutOfPlace),
            0u);
  EXPECT_EQ(world.target.lastLaunch().systemScope, 0u);
  // A launch whose peers run elsewhere: AMissingRankTimesOutWithWhatEachWaitsFor.
}

TEST(CudaEmulated, TooManyBlocksForTheDeviceIsRefused) {
  World world(4, /*resident=*/3);
  measure::BenchCase c{CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum, 0, 4};
  try {
    runChecked(world, ringAllReducePlan(4, ReduceOp::Sum), c, 64, Placement::OutOfPlace);
    FAIL() << "a launch that cannot be resident was accepted";
  } catch (const RuntimeError &e) {
    EXPECT_EQ(e.code(), ErrorCode::Plan);
    EXPECT_NE(std::string(e.what()).find("needs 4 blocks resident at once on host emulation (4 "
                                         "ranks' channels), which holds 3"),
              std::string::npos)
        << e.what();
  }
}

TEST(CudaEmulated, AMissingRankTimesOutWithWhatEachWaitsFor) {
  // Rank 1's program runs, rank 0's peer in the plan is absent: a 2-rank plan launched for a
  // group holding only rank 1 of 2.
  test::HostTarget target;
  FifoStore fifos(target);
  ConnectionTable table;
  LaunchGroup group(target, fifos, table, {1}, 2, /*timeoutNs=*/50'000'000);
  const Plan plan = ringAllReducePlan(2, ReduceOp::Sum);
  std::vector<float> in(8, 1.0f), out(8, 0.0f);
  CallBuffers call;
  call.in = in.data();
  call.out = out.data();
  call.inBytes = call.outBytes = 32;
  call.count = 8;
  group.enqueue(plan, {call}, nullptr);
  EXPECT_EQ(target.lastLaunch().systemScope, 1u) << "rank 0 of the world runs elsewhere";
  for (int attempt = 0; attempt < 2; ++attempt) {  // the failure stays with the world
    try {
      group.enqueue(plan, {call}, nullptr);
      FAIL() << "no failure reported";
    } catch (const RuntimeError &e) {
      EXPECT_EQ(e.code(), ErrorCode::Timeout);
      const std::string what = e.what();
      EXPECT_NE(what.find("host emulation: rank 1 channels[0] op "), std::string::npos) << what;
      EXPECT_NE(what.find("waiting for a message from rank 0 (channel 0)"), std::string::npos)
          << what;
    }
  }
}

TEST(CudaEmulated, EveryAllocationIsReleased) {
  test::HostTarget target;
  {
    FifoStore fifos(target);
    ConnectionTable table;
    LaunchGroup group(target, fifos, table, {0, 1}, 2, 1'000'000'000);
    EXPECT_GT(target.liveAllocations(), 0u);
  }
  EXPECT_EQ(target.liveAllocations(), 0u);
}

}  // namespace
