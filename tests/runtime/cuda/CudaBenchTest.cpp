// The cuda backend through the benchmark (what plan-bench and plan-tune --backend cuda run): the
// built-in plans' sweep on virtual ranks, and on one device per rank where several GPUs exist,
// checked against the host reference. Skipped without a GPU.
#include "runtime/backends/Backend.h"
#include "runtime/backends/cuda/CudaTarget.h"
#include "tuner/measure/Runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace collplan;

namespace {

void expectSweepCorrect(measure::BenchCase c) {
  const measure::PlanSource source = measure::PlanSource::builtIn(c);
  const std::vector<measure::SizePoint> sizes = measure::sizePoints(c, {8, 4096, 1 << 20, 16 << 20});
  measure::LoopSettings settings;
  settings.warmup = 1;
  settings.reps = 3;
  const std::vector<measure::SizeResult> results =
      measure::makeRunner(cudaBackend())->run(source, c, sizes, settings);
  ASSERT_EQ(results.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(results[i].wrong, 0u) << measure::describe(c) << " at " << sizes[i].bytes << " bytes";
    EXPECT_GT(results[i].timeUs, 0.0);
    EXPECT_EQ(results[i].samplesUs.size(), 3u);
  }
}

TEST(CudaBench, VirtualRanksSweepMatchesTheHostReference) {
  std::string why;
  if (cuda::visibleDevices(&why) == 0) GTEST_SKIP() << "no CUDA device here (" << why << ")";
  ::unsetenv("COLLPLAN_CUDA_DEVICES");
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                              CollectiveKind::ReduceScatter, CollectiveKind::AllToAll})
    expectSweepCorrect({kind, DType::BF16, ReduceOp::Sum, 0, 8});
}

TEST(CudaBench, OneDevicePerRankSweepMatchesTheHostReference) {
  std::string why;
  const int devices = cuda::visibleDevices(&why);
  if (devices < 2) GTEST_SKIP() << "fewer than 2 CUDA devices here (" << devices << ")";
  std::string spec;
  for (int d = 0; d < devices && d < 8; ++d) spec += (d ? "," : "") + std::to_string(d);
  ::setenv("COLLPLAN_CUDA_DEVICES", spec.c_str(), 1);
  expectSweepCorrect({CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum, 0, std::min(devices, 8)});
  ::unsetenv("COLLPLAN_CUDA_DEVICES");
}

}  // namespace
