// Every compiled algorithm x collective it implements through the cuda backend on GPU 0: N =
// 2..8 virtual ranks, every dtype, odd counts and multi-block ops, in and out of place. Each case
// skips, saying why, where no device is visible (the `gpu` label: CI has none).
#include "CompiledPlanCheck.h"

#include "runtime/backends/cuda/CudaTarget.h"

#include <gtest/gtest.h>

using namespace collplan;
using namespace collplan::cuda;

namespace {

using Case = collplan::testing::AlgorithmCase;

class CompiledPlans : public ::testing::TestWithParam<Case> {};

TEST_P(CompiledPlans, OnTheGpu) {
  std::string why;
  if (visibleDevices(&why) == 0) GTEST_SKIP() << "no CUDA device here (" << why << ")";
  CudaTarget target(0);
  const test::Readback readback{
      [&](void *dst, const void *src, size_t bytes) { target.copyOut(dst, src, bytes); },
      [&] { target.synchronize(nullptr); }};
  test::checkEveryPlan(GetParam(), target, readback,
                       {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I32, DType::I64,
                        DType::U8},
                       {1, 7, 1029, 4096});
  // Ops of several blocks per channel: two dtypes suffice (the host's check of every element
  // costs more than the launch).
  test::checkEveryPlan(GetParam(), target, readback, {DType::F32, DType::BF16},
                       {size_t(1) << 18});
}

INSTANTIATE_TEST_SUITE_P(Algorithms, CompiledPlans,
                         ::testing::ValuesIn(collplan::testing::everyAlgorithmCase()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return collplan::testing::algorithmCaseName(info.param);
                         });

}  // namespace
