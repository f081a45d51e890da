// Every plan of one compiled algorithm case through the launch path of a DeviceTarget, on
// N = 2..8 virtual ranks: shared by the emulation's and the GPU's compiled-plan tests.
#pragma once

#include "LaunchCheck.h"

#include "tests/compiler/ScheduleTestSupport.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <numeric>

namespace collplan::cuda::test {

/// Every rank of a world on one device of `target`, and the plans it ran (prepared by address,
/// so they live as long as the group).
struct VirtualRanks {
  VirtualRanks(DeviceTarget &target, int ranks) : buffers(target), fifos(target) {
    std::vector<int> all(static_cast<size_t>(ranks));
    std::iota(all.begin(), all.end(), 0);
    group = std::make_unique<LaunchGroup>(target, fifos, table, all, ranks, 30'000'000'000ull);
  }
  CheckBuffers buffers;
  FifoStore fifos;
  ConnectionTable table;
  std::unique_ptr<LaunchGroup> group;
  std::deque<Plan> plans;
};

/// Runs every plan of `c` on N = 2..8 ranks for each dtype, count and placement.
inline void checkEveryPlan(const collplan::testing::AlgorithmCase &c, DeviceTarget &target, const Readback &readback,
                    const std::vector<DType> &dtypes, const std::vector<size_t> &counts) {
  for (int ranks = 2; ranks <= 8; ++ranks) {
    VirtualRanks world(target, ranks);
    for (Plan &compiled : collplan::testing::compiledPlans(c, ranks)) {
      const Plan &plan = world.plans.emplace_back(std::move(compiled));
      for (DType dtype : dtypes) {
        const ReduceOp op = dtype == DType::I32 ? ReduceOp::Max : ReduceOp::Sum;
        const measure::BenchCase bc{c.kind, dtype, op, plan.root, ranks};
        Plan typed = plan;
        if (needsReduceOp(c.kind)) typed.op = op;
        const Plan &run = op == ReduceOp::Sum ? plan : world.plans.emplace_back(std::move(typed));
        for (size_t count : counts)
          for (Placement placement : {Placement::OutOfPlace, Placement::InPlace})
            EXPECT_EQ(
                runPlanChecked(world.buffers, *world.group, readback, run, bc, count, placement), 0u)
                << c.algorithm->name << " " << toString(c.kind) << " N=" << ranks << " root "
                << plan.root << " " << toString(dtype) << " count=" << count
                << " placement=" << int(placement);
      }
    }
  }
}

}  // namespace collplan::cuda::test
