// Reductions in one fixed order: plans compiled with --fixed-reduction-order fold every element
// left to right in rank order, so a bundle of several such plans gives bitwise the result of that
// one reference order at every size, across every bucket edge, with random floats.
#include "compiler/export/PlanCompiler.h"
#include "runtime/api/collplan.hpp"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/PlanVerify.h"
#include "tests/runtime/exec/ExecTestSupport.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

using namespace collplan;

namespace {

/// The f32 sum allreduce `algorithm` compiles to on `ranks` ranks; with `rankOrder`, compiled
/// with --fixed-reduction-order. An empty plan and `error` where it does not compile.
Plan compileAllReduce(const std::string &algorithm, int ranks, int slices, bool rankOrder,
                      std::string &error) {
  CollectiveSpec spec;
  spec.ranks = ranks;
  spec.op = ReduceOp::Sum;
  CompileOptions options;
  options.algorithm = algorithm;
  options.slices = slices;
  options.rankOrderReductions = rankOrder;
  auto compiled = compileCollective(spec, options, error);
  return mlir::succeeded(compiled) ? compiled->plan : Plan{};
}

Plan compileRankOrder(const std::string &algorithm, int ranks, int slices, std::string &error) {
  return compileAllReduce(algorithm, ranks, slices, true, error);
}

/// A cpu-threads bundle of `ranks` ranks with one f32 sum allreduce table of `buckets`, written
/// to a temporary file named for `name`.
std::string writeAllReduceBundle(std::vector<Bucket> buckets, int ranks, const std::string &name) {
  BucketTable table;
  table.op = ReduceOp::Sum;
  table.buckets = std::move(buckets);
  Bundle bundle;
  bundle.backend = "cpu-threads";
  bundle.topologyFingerprint = "any";
  bundle.ranks = ranks;
  bundle.tables.push_back(std::move(table));
  const std::string path =
      (std::filesystem::temp_directory_path() / ("collplan-" + name + ".json")).string();
  saveBundleFile(bundle, path);
  return path;
}

/// f32 sum allreduce: one-shot up to 64 B, two-shot to 4 KiB, two-shot in 2 slices above.
std::string writeFixedOrderBundle(int ranks) {
  std::string error;
  std::vector<Bucket> buckets;
  buckets.push_back(test::bucketOf(0, 64, compileRankOrder("one-shot", ranks, 1, error)));
  buckets.push_back(test::bucketOf(65, 4096, compileRankOrder("two-shot", ranks, 1, error)));
  buckets.push_back(test::bucketOf(4097, UINT64_MAX, compileRankOrder("two-shot", ranks, 2, error)));
  EXPECT_EQ(error, "");
  return writeAllReduceBundle(std::move(buckets), ranks, "fixed-order-" + std::to_string(ranks));
}

/// Rank r's input: floats of mixed magnitudes, so the order of a sum changes its last bits.
std::vector<float> inputOf(int rank, size_t count) {
  std::mt19937 random(uint32_t(1000 + rank));
  std::uniform_real_distribution<float> mantissa(-1.f, 1.f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  std::vector<float> v(count);
  for (float &x : v) x = std::ldexp(mantissa(random), exponent(random));
  return v;
}

}  // namespace

TEST(FixedReductionOrder, AlgorithmsThatFoldOtherwiseAreRefusedWithTheUnit) {
  std::string error;
  compileRankOrder("ring", 4, 1, error);
  EXPECT_NE(error.find("ring does not reduce in rank order"), std::string::npos) << error;
  EXPECT_NE(error.find("folds (((1+2)+3)+0)"), std::string::npos) << error;
  error.clear();
  const Plan plan = compileRankOrder("two-shot", 4, 1, error);
  EXPECT_EQ(error, "");
  EXPECT_TRUE(plan.rankOrderReductions);
  EXPECT_EQ(rankOrderTree(4), "(((0+1)+2)+3)");
}

TEST(FixedReductionOrder, BitwiseTheRankOrderAtEverySizeAcrossBucketEdges) {
  for (int ranks : {2, 3, 5}) {
    const std::string path = writeFixedOrderBundle(ranks);
    World world = World::threads(ranks, path.c_str());
    // Counts on both sides of each bucket edge (16 and 1024 floats), odd counts among them.
    const std::vector<size_t> counts = {1, 7, 16, 17, 333, 1024, 1025, 4099, 20000};
    std::vector<std::string> failures(static_cast<size_t>(ranks), std::string());
    world.runThreads([&](Comm &comm) {
      for (size_t count : counts) {
        const std::vector<float> send = inputOf(comm.rank(), count);
        std::vector<float> recv(count);
        comm.allreduce(send.data(), recv.data(), count, COLLPLAN_SUM);
        std::vector<float> want = inputOf(0, count);
        for (int r = 1; r < ranks; ++r) {
          const std::vector<float> x = inputOf(r, count);
          for (size_t i = 0; i < count; ++i) want[i] += x[i];
        }
        if (std::memcmp(want.data(), recv.data(), count * sizeof(float)) != 0 &&
            failures[size_t(comm.rank())].empty())
          failures[size_t(comm.rank())] =
              "count " + std::to_string(count) + " differs from the rank-order sum";
      }
    });
    for (int r = 0; r < ranks; ++r)
      EXPECT_EQ(failures[size_t(r)], "") << "ranks=" << ranks << " rank " << r;
    std::filesystem::remove(path);
  }
}

namespace {

/// A bundle of one allreduce f32 sum table whose only plan is `plan`, written to a temporary file.
std::string writeOnePlanBundle(Plan plan, const std::string &name) {
  const int ranks = plan.ranks;
  return writeAllReduceBundle({test::bucketOf(0, UINT64_MAX, std::move(plan))}, ranks, name);
}

Plan compileFree(const std::string &algorithm, int ranks) {
  std::string error;
  Plan plan = compileAllReduce(algorithm, ranks, 1, false, error);
  EXPECT_EQ(error, "");
  return plan;
}

/// Creates a cpu-threads world of `ranks` with `bundle`; its status and collplan_last_error.
std::pair<collplan_status_t, std::string> createThreadsWorld(int ranks, const std::string &bundle,
                                                             bool fixedOrder,
                                                             collplan_world_t *kept = nullptr) {
  collplan_config_t config;
  collplan_config_init(&config);
  config.backend = "cpu-threads";
  config.ranks = ranks;
  config.bundle_file = bundle.c_str();
  config.fixed_reduction_order = fixedOrder;
  collplan_world_t world = nullptr;
  const collplan_status_t status = collplan_world_create(&config, &world);
  std::pair<collplan_status_t, std::string> result{status, collplan_last_error()};
  if (kept) *kept = world;
  else if (world) collplan_world_destroy(world);
  return result;
}

}  // namespace

TEST(FixedReductionOrder, MarkingProvesThePlanAndTheBundleCheckNamesThePlanOutOfOrder) {
  Plan ring = compileFree("ring", 4);
  const std::optional<std::string> why = markRankOrder(ring);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("ring does not reduce in rank order"), std::string::npos) << *why;
  EXPECT_FALSE(ring.rankOrderReductions) << "a refused plan keeps no mark";
  Plan twoShot = compileFree("two-shot", 4);
  EXPECT_FALSE(markRankOrder(twoShot));
  EXPECT_TRUE(twoShot.rankOrderReductions);

  Bundle bundle;
  BucketTable table;
  table.op = ReduceOp::Sum;
  table.buckets.push_back(test::bucketOf(0, 99, twoShot));
  table.buckets.push_back(test::bucketOf(100, UINT64_MAX, ring));
  bundle.tables.push_back(table);
  EXPECT_EQ(firstPlanOutOfRankOrder(bundle).value_or(""),
            "tables[0].buckets[1].plan (allreduce f32 sum, ring)");
  bundle.tables[0].buckets.pop_back();
  EXPECT_FALSE(firstPlanOutOfRankOrder(bundle));
}

TEST(FixedReductionOrder, AWorldThatRequiresTheOrderRefusesABundleWithoutIt) {
  const std::string path = writeOnePlanBundle(compileFree("ring", 4), "free-order");
  EXPECT_EQ(createThreadsWorld(4, path, false).first, COLLPLAN_SUCCESS);
  const auto [status, error] = createThreadsWorld(4, path, true);
  EXPECT_EQ(status, COLLPLAN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(error.find(path + ": tables[0].buckets[0].plan (allreduce f32 sum, ring) does not "
                              "fix the reduction order"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("plan-tune --fixed-reduction-order"), std::string::npos) << error;
  // The environment asks as well as the config; a value other than 0 or 1 is named.
  setenv("COLLPLAN_FIXED_REDUCTION_ORDER", "1", 1);
  EXPECT_EQ(createThreadsWorld(4, path, false).first, COLLPLAN_ERROR_INVALID_ARGUMENT);
  setenv("COLLPLAN_FIXED_REDUCTION_ORDER", "yes", 1);
  const auto [badStatus, badError] = createThreadsWorld(4, path, false);
  EXPECT_EQ(badStatus, COLLPLAN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(badError.find("COLLPLAN_FIXED_REDUCTION_ORDER must be 0 or 1"), std::string::npos)
      << badError;
  unsetenv("COLLPLAN_FIXED_REDUCTION_ORDER");
  std::filesystem::remove(path);
}

TEST(FixedReductionOrder, ReducingCallsTheBundleDoesNotCoverAreRefused) {
  Plan twoShot = compileFree("two-shot", 2);
  ASSERT_FALSE(markRankOrder(twoShot));
  const std::string path = writeOnePlanBundle(twoShot, "fixed-order-f32");
  collplan_world_t world = nullptr;
  ASSERT_EQ(createThreadsWorld(2, path, true, &world).first, COLLPLAN_SUCCESS);
  struct Outcome {
    collplan_status_t covered = COLLPLAN_SUCCESS, uncovered = COLLPLAN_SUCCESS,
                      notReducing = COLLPLAN_SUCCESS;
    std::string error;
  };
  std::vector<Outcome> outcomes(2);
  ASSERT_EQ(collplan_run_threads(
                world,
                [](collplan_comm_t comm, void *user) {
                  int rank = 0;
                  collplan_comm_rank(comm, &rank);
                  Outcome &o = static_cast<std::vector<Outcome> *>(user)->at(size_t(rank));
                  float f[8] = {1, 2, 3, 4, 5, 6, 7, 8}, g[16];
                  double d[8] = {};
                  o.covered = collplan_allreduce(comm, f, g, 8, COLLPLAN_F32, COLLPLAN_SUM);
                  o.uncovered = collplan_allreduce(comm, d, d, 8, COLLPLAN_F64, COLLPLAN_SUM);
                  o.error = collplan_last_error();
                  o.notReducing = collplan_allgather(comm, f, g, 8, COLLPLAN_F32);
                  return COLLPLAN_SUCCESS;
                },
                &outcomes),
            COLLPLAN_SUCCESS);
  for (const Outcome &o : outcomes) {
    EXPECT_EQ(o.covered, COLLPLAN_SUCCESS);
    EXPECT_EQ(o.uncovered, COLLPLAN_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(o.error.find("allreduce f64 sum: the world requires a fixed reduction order"),
              std::string::npos)
        << o.error;
    EXPECT_EQ(o.notReducing, COLLPLAN_SUCCESS) << "collectives that reduce nothing keep the built-in plans";
  }
  collplan_world_destroy(world);
  std::filesystem::remove(path);
}
