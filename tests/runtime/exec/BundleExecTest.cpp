// Communicators that load a bundle run its plans (direct allreduce, binomial broadcast) per bucket.
#include "ExecTestSupport.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/DefaultPlans.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <unistd.h>

using namespace collplan;
using namespace collplan::test;

namespace {

/// A bundle for `ranks` ranks of `backend`: allreduce uses ring up to 1 KiB and direct above;
/// broadcast uses the binomial-tree plan rooted at 0 at every size.
std::string writeBundle(int ranks, const char *backend = "cpu-threads") {
  Bundle bundle;
  bundle.topologyFingerprint = "test";
  bundle.backend = backend;
  bundle.ranks = ranks;
  bundle.toolVersion = "test";
  for (int d = 0; d < kNumDTypes; ++d)
    for (int op = 0; op < 4; ++op) {
      BucketTable t;
      t.collective = CollectiveKind::AllReduce;
      t.dtype = DType(d);
      t.op = ReduceOp(op);
      t.buckets.push_back(bucketOf(0, 1024, ringAllReducePlan(ranks, ReduceOp(op))));
      t.buckets.push_back(bucketOf(1025, std::numeric_limits<uint64_t>::max(),
                                 twoShotAllReducePlan(ranks, ReduceOp(op))));
      bundle.tables.push_back(std::move(t));
    }
  for (int d = 0; d < kNumDTypes; ++d)
    for (int root = 0; root < 1; ++root) {
      BucketTable t;
      t.collective = CollectiveKind::Broadcast;
      t.dtype = DType(d);
      t.buckets.push_back(bucketOf(0, std::numeric_limits<uint64_t>::max(), binomialBroadcastPlan(ranks, 0)));
      bundle.tables.push_back(std::move(t));
    }
  const std::string path = "/tmp/collplan-exec-bundle-" + std::to_string(getpid()) + "-" +
                           backend + "-" + std::to_string(ranks) + ".json";
  saveBundleFile(bundle, path);
  return path;
}

class ExecBundle : public ::testing::TestWithParam<int> {};

TEST_P(ExecBundle, BucketsChooseThePlanAndResultsMatchTheReference) {
  const int ranks = GetParam();
  const std::string path = writeBundle(ranks);
  World world = World::threads(ranks, path.c_str());
  std::vector<std::string> failures(static_cast<size_t>(ranks));
  world.runThreads([&](Comm &comm) {
    std::string &failure = failures[size_t(comm.rank())];
    for (CollCase c : sweepCases(CollectiveKind::AllReduce, ranks)) {
      if (failure.empty()) failure = runAndCheck(comm, c);
      if (!failure.empty()) return;
      const size_t bytes = c.count * dtypeSize(c.dtype);
      if (c.count > 0 && ranks > 1) {
        const std::string expected = bytes > 1024 ? "two-shot" : "ring";
        if (comm.lastAlgorithm() != expected)
          failure = c.describe(ranks) + ": ran " + comm.lastAlgorithm() + ", expected " + expected;
      }
    }
    // Root 0 runs the bundle's binomial plan; another root is not what it was tuned for, so
    // the default rules' flat plan (up to 8 ranks) serves it.
    for (CollCase c : sweepCases(CollectiveKind::Broadcast, ranks)) {
      if (failure.empty()) failure = runAndCheck(comm, c);
      const std::string expected = c.root == 0 ? "binomial-tree" : "flat";
      if (failure.empty() && c.count > 0 && ranks > 1 && comm.lastAlgorithm() != expected)
        failure = c.describe(ranks) + ": ran " + comm.lastAlgorithm() + ", expected " + expected;
    }
  });
  for (size_t r = 0; r < failures.size(); ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Ranks, ExecBundle, ::testing::Values(1, 2, 3, 4, 7),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return "N" + std::to_string(info.param);
                         });

/// Each process of a cpu-shm job loads only its own rank's programs from the bundle and runs
/// the bundle's plans.
TEST(ExecBundle, CpuShmProcessesRunTheBundlesPlans) {
  const int ranks = 3;
  const std::string path = writeBundle(ranks, "cpu-shm");
  const std::string job = uniqueJob("test-bundle");
  const std::string failure = runInProcesses(ranks, [&](int r) {
    setenv("COLLPLAN_TIMEOUT_S", "30", 1);
    World world = World::shm(job.c_str(), ranks, r, path.c_str());
    Comm comm = world.comm(r);
    for (CollCase c : sweepCases(CollectiveKind::AllReduce, ranks)) {
      std::string error = runAndCheck(comm, c);
      const size_t bytes = c.count * dtypeSize(c.dtype);
      const std::string expected = bytes > 1024 ? "two-shot" : "ring";
      if (error.empty() && c.count > 0 && comm.lastAlgorithm() != expected)
        error = c.describe(ranks) + ": ran " + comm.lastAlgorithm() + ", expected " + expected;
      if (!error.empty()) {
        std::fprintf(stderr, "rank %d: %s\n", r, error.c_str());
        return 1;
      }
    }
    comm.barrier();
    return 0;
  });
  EXPECT_EQ(failure, "");
  std::remove(path.c_str());
}

TEST(ExecBundleErrors, BundleForOtherRankCountIsRejected) {
  const std::string path = writeBundle(3);
  collplan_config_t c;
  collplan_config_init(&c);
  c.backend = "cpu-threads";
  c.ranks = 4;
  c.bundle_file = path.c_str();
  collplan_world_t w = nullptr;
  EXPECT_EQ(collplan_world_create(&c, &w), COLLPLAN_ERROR_FILE);
  EXPECT_NE(std::string(collplan_last_error()).find(path), std::string::npos) << collplan_last_error();
  c.ranks = 3;
  c.backend = "cpu-shm";
  c.rank = 0;
  c.shm_job = "bundle-backend-mismatch";
  EXPECT_EQ(collplan_world_create(&c, &w), COLLPLAN_ERROR_FILE);
  EXPECT_NE(std::string(collplan_last_error()).find("backend"), std::string::npos) << collplan_last_error();
  std::remove(path.c_str());
}

}  // namespace
