// The plan kernel on a real GPU: every built-in plan on N = 2..8 virtual ranks of device 0, every
// dtype, odd counts, in place, checked against the host reference. Skipped without a GPU.
#include "LaunchCheck.h"

#include "runtime/backends/cuda/CudaTarget.h"
#include "runtime/plan/DefaultPlans.h"

#include <gtest/gtest.h>

#include <deque>
#include <numeric>

using namespace collplan;
using namespace collplan::cuda;

namespace {

using test::Placement;

class CudaDevice : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (visibleDevices(&why) == 0) GTEST_SKIP() << "no CUDA device here (" << why << ")";
  }
};

TEST_F(CudaDevice, EveryBuiltInPlanEveryDtypeOddCountsInPlace) {
  CudaTarget target(0);
  const test::Readback readback{
      [&](void *dst, const void *src, size_t bytes) { target.copyOut(dst, src, bytes); },
      [&] { target.synchronize(nullptr); }};
  test::CheckBuffers buffers(target);
  for (int n = 2; n <= 8; ++n) {
    FifoStore fifos(target);
    ConnectionTable table;
    std::vector<int> ranks(static_cast<size_t>(n));
    std::iota(ranks.begin(), ranks.end(), 0);
    LaunchGroup group(target, fifos, table, ranks, n, 10'000'000'000ull);
    std::deque<Plan> plans;  // prepared by address: they outlive the group's use
    for (const BuiltInPlan &built : builtInPlans())
      for (CollectiveKind kind : built.kinds)
        for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I32,
                            DType::I64, DType::U8}) {
          measure::BenchCase c{kind, dtype, dtype == DType::I32 ? ReduceOp::Max : ReduceOp::Sum,
                             n - 1, n};
          const Plan &plan = plans.emplace_back(built.make(kind, n, c.op, c.root, -1));
          // Multi-block ops (2^20) in two dtypes: the host's check of every element costs more
          // than the launch.
          const bool large = dtype == DType::F32 || dtype == DType::BF16;
          for (size_t count : {size_t(1), size_t(7), size_t(1029), large ? size_t(1) << 20 : 4096})
            for (Placement placement : {Placement::OutOfPlace, Placement::InPlace})
              EXPECT_EQ(
                  test::runPlanChecked(buffers, group, readback, plan, c, count, placement), 0u)
                  << plan.algorithm << " " << toString(kind) << " N=" << n << " "
                  << toString(dtype) << " count=" << count << " placement=" << int(placement);
        }
  }
}

}  // namespace
