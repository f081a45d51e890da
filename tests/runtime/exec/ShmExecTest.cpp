// cpu-shm tests: ranks as forked processes over POSIX shared memory; segment errors and cleanup.
#include "ExecTestSupport.h"

#include "runtime/exec/RuntimeError.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <tuple>
#include <unistd.h>

using namespace collplan;
using namespace collplan::test;

namespace {

/// The cases every cpu-shm rank runs: a representative subset of the cpu-threads sweep.
std::vector<CollCase> shmCases(int ranks) {
  std::vector<CollCase> cases;
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                              CollectiveKind::ReduceScatter, CollectiveKind::AllToAll,
                              CollectiveKind::Broadcast, CollectiveKind::Reduce})
    for (const CollCase &c : sweepCases(kind, ranks, /*allOps=*/false))
      if (c.dtype == DType::F32 || c.dtype == DType::BF16 || c.dtype == DType::I64) cases.push_back(c);
  CollCase big;  // grows the staging segment (a new generation) mid-run
  big.count = 200003;
  for (Placement p : {Placement::OutOfPlace, Placement::InPlace}) {
    big.placement = p;
    cases.push_back(big);
  }
  // Buffers from collplan_mem_alloc: values are read in place from the peers' shared regions.
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                              CollectiveKind::ReduceScatter, CollectiveKind::AllToAll})
    for (size_t count : {size_t(37), size_t(70001)})
      for (Placement p : {Placement::OutOfPlace, Placement::InPlace, Placement::SameStart}) {
        CollCase shared;
        shared.kind = kind;
        shared.count = count;
        shared.placement = p;
        shared.sharedBuffers = true;
        cases.push_back(shared);
      }
  CollCase maxF16;
  maxF16.dtype = DType::F16;
  maxF16.op = ReduceOp::Max;
  maxF16.count = 101;
  cases.push_back(maxF16);
  return cases;
}

/// How a sweep moves values between processes (the COLLPLAN_SHM_SINGLE_COPY* settings).
enum class Transfers { Default, SingleCopyAlways, StagedOnly };

const char *transfersName(Transfers t) {
  switch (t) {
  case Transfers::Default: return "Default";
  case Transfers::SingleCopyAlways: return "SingleCopyAlways";
  case Transfers::StagedOnly: return "StagedOnly";
  }
  return "?";
}

void applyTransfers(Transfers t) {
  unsetenv("COLLPLAN_SHM_SINGLE_COPY");
  unsetenv("COLLPLAN_SHM_SINGLE_COPY_MIN");
  if (t == Transfers::SingleCopyAlways) setenv("COLLPLAN_SHM_SINGLE_COPY_MIN", "0", 1);
  if (t == Transfers::StagedOnly) setenv("COLLPLAN_SHM_SINGLE_COPY", "0", 1);
}

/// Forks `ranks` processes that each attach to the job and run the cases; returns "" when all
/// exit 0, else what went wrong.
std::string runForked(int ranks, const std::string &job, Transfers transfers = Transfers::Default) {
  return runInProcesses(ranks, [&](int r) {
    setenv("COLLPLAN_TIMEOUT_S", "30", 1);
    applyTransfers(transfers);
    World world = World::shm(job.c_str(), ranks, r);
    Comm comm = world.comm(r);
    for (const CollCase &c : shmCases(ranks)) {
      const std::string error = runAndCheck(comm, c);
      if (!error.empty()) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
      }
    }
    comm.barrier();
    return 0;
  });
}

class ExecShm : public ::testing::TestWithParam<std::tuple<int, Transfers>> {};

TEST_P(ExecShm, RepresentativeSweepAcrossProcesses) {
  const std::string job = uniqueJob("test-sweep");
  EXPECT_EQ(runForked(std::get<0>(GetParam()), job, std::get<1>(GetParam())), "");
  EXPECT_TRUE(shmLeftovers(job).empty()) << "segments left in /dev/shm";
}

INSTANTIATE_TEST_SUITE_P(
    Ranks, ExecShm,
    ::testing::Combine(::testing::Values(1, 2, 3, 5, 8),
                       ::testing::Values(Transfers::Default, Transfers::SingleCopyAlways,
                                         Transfers::StagedOnly)),
    [](const ::testing::TestParamInfo<std::tuple<int, Transfers>> &info) {
      return "N" + std::to_string(std::get<0>(info.param)) + "_" +
             transfersName(std::get<1>(info.param));
    });

TEST(ExecShmErrors, MissingRankZeroTimesOutWithAClearMessage) {
  setenv("COLLPLAN_TIMEOUT_S", "0.3", 1);
  const std::string job = uniqueJob("test-alone");
  try {
    World world = World::shm(job.c_str(), 2, 1);
    FAIL() << "expected a timeout";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), COLLPLAN_ERROR_TIMEOUT);
    EXPECT_NE(std::string(e.what()).find("could not open shared-memory segment /dev/shm/collplan-" + job),
              std::string::npos)
        << e.what();
  }
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
}

TEST(ExecShmErrors, RankCountMismatchIsReported) {
  setenv("COLLPLAN_TIMEOUT_S", "5", 1);
  const std::string job = uniqueJob("test-mismatch");
  World first = World::shm(job.c_str(), 2, 0);
  try {
    World second = World::shm(job.c_str(), 3, 1);
    FAIL() << "expected a rank-count mismatch";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), COLLPLAN_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("was created for 2 ranks"), std::string::npos) << e.what();
  }
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
}

TEST(ExecShmErrors, WorldsOfOneProcessCleanUp) {
  const std::string job = uniqueJob("test-clean");
  {
    World world = World::shm(job.c_str(), 1, 0);
    Comm comm = world.comm(0);
    std::vector<double> x(1000, 2.0), y(1000);
    comm.allreduce(x.data(), y.data(), x.size(), COLLPLAN_MAX);
    EXPECT_EQ(y[999], 2.0);
    EXPECT_THROW(world.comm(0), Error);  // a cpu-shm world has one communicator
  }
  EXPECT_TRUE(shmLeftovers(job).empty());
}

}  // namespace
