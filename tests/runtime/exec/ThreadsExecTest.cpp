// cpu-threads executor tests: every collective against the reference, N = 1..8 on this machine.
#include "ExecTestSupport.h"

#include "runtime/core/Reduce.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

using namespace collplan;
using namespace collplan::test;

namespace {

/// Runs every case on every rank of a fresh cpu-threads world; returns each rank's first failure.
std::vector<std::string> runSweep(int ranks, const std::vector<CollCase> &cases) {
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);  // a broken case fails instead of hanging the suite
  World world = World::threads(ranks);
  std::vector<std::string> failures(static_cast<size_t>(ranks));
  world.runThreads([&](Comm &comm) {
    for (const CollCase &c : cases) {
      std::string error = runAndCheck(comm, c);
      if (!error.empty()) {
        failures[size_t(comm.rank())] = error;
        return;
      }
    }
  });
  return failures;
}

void expectSweepPasses(CollectiveKind kind, int ranks) {
  const std::vector<std::string> failures = runSweep(ranks, sweepCases(kind, ranks));
  for (size_t r = 0; r < failures.size(); ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
}

class ExecThreads : public ::testing::TestWithParam<int> {};

TEST_P(ExecThreads, AllReduce) { expectSweepPasses(CollectiveKind::AllReduce, GetParam()); }
TEST_P(ExecThreads, AllGather) { expectSweepPasses(CollectiveKind::AllGather, GetParam()); }
TEST_P(ExecThreads, ReduceScatter) { expectSweepPasses(CollectiveKind::ReduceScatter, GetParam()); }
TEST_P(ExecThreads, AllToAll) { expectSweepPasses(CollectiveKind::AllToAll, GetParam()); }
TEST_P(ExecThreads, Broadcast) { expectSweepPasses(CollectiveKind::Broadcast, GetParam()); }
TEST_P(ExecThreads, Reduce) { expectSweepPasses(CollectiveKind::Reduce, GetParam()); }
TEST_P(ExecThreads, Gather) { expectSweepPasses(CollectiveKind::Gather, GetParam()); }
TEST_P(ExecThreads, Scatter) { expectSweepPasses(CollectiveKind::Scatter, GetParam()); }

TEST_P(ExecThreads, BarrierRepeats) {
  const int ranks = GetParam();
  World world = World::threads(ranks);
  world.runThreads([&](Comm &comm) {
    for (int i = 0; i < 50; ++i) comm.barrier();
  });
}

/// Random floats make the result depend on the fold order: every rank must still hold the same
/// bytes, because each chunk is reduced once and copied.
TEST_P(ExecThreads, AllReduceRandomIsBitwiseIdenticalOnAllRanks) {
  const int ranks = GetParam();
  World world = World::threads(ranks);
  for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
    const size_t count = 1000 + size_t(ranks);
    const size_t bytes = count * dtypeSize(dtype);
    std::vector<std::vector<uint8_t>> outputs(static_cast<size_t>(ranks), std::vector<uint8_t>(bytes));
    world.runThreads([&](Comm &comm) {
      std::mt19937 rng(unsigned(comm.rank() + 1));
      std::uniform_real_distribution<double> dist(-1.0, 1.0);
      std::vector<uint8_t> input(bytes);
      for (size_t i = 0; i < count; ++i) encode(dtype, dist(rng), &input[i * dtypeSize(dtype)]);
      comm.allreduce(input.data(), outputs[size_t(comm.rank())].data(), count,
                     collplan_dtype_t(int(dtype)), COLLPLAN_SUM);
    });
    for (int r = 1; r < ranks; ++r)
      EXPECT_EQ(outputs[size_t(r)], outputs[0]) << toString(dtype) << " rank " << r;
  }
}

/// Large enough that staging, zero-copy pulls and several tiles of the fused fold all run.
TEST_P(ExecThreads, AllReduceLargeF32) {
  const int ranks = GetParam();
  CollCase c;
  c.kind = CollectiveKind::AllReduce;
  c.count = 300001;
  std::vector<CollCase> cases;
  for (Placement p : {Placement::OutOfPlace, Placement::InPlace}) {
    c.placement = p;
    cases.push_back(c);
  }
  const std::vector<std::string> failures = runSweep(ranks, cases);
  for (size_t r = 0; r < failures.size(); ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
}

INSTANTIATE_TEST_SUITE_P(Ranks, ExecThreads, ::testing::Range(1, 9),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return "N" + std::to_string(info.param);
                         });

}  // namespace
