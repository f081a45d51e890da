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

Plan compileRankOrder(const std::string &algorithm, int ranks, int slices, std::string &error) {
  CollectiveSpec spec;
  spec.ranks = ranks;
  spec.op = ReduceOp::Sum;
  CompileOptions options;
  options.algorithm = algorithm;
  options.slices = slices;
  options.rankOrderReductions = true;
  auto compiled = compileCollective(spec, options, error);
  return mlir::succeeded(compiled) ? compiled->plan : Plan{};
}

/// f32 sum allreduce: one-shot up to 64 B, two-shot to 4 KiB, two-shot in 2 slices above.
std::string writeFixedOrderBundle(int ranks) {
  std::string error;
  BucketTable table;
  table.collective = CollectiveKind::AllReduce;
  table.dtype = DType::F32;
  table.op = ReduceOp::Sum;
  table.buckets.push_back(test::bucketOf(0, 64, compileRankOrder("one-shot", ranks, 1, error)));
  table.buckets.push_back(test::bucketOf(65, 4096, compileRankOrder("two-shot", ranks, 1, error)));
  table.buckets.push_back(test::bucketOf(4097, UINT64_MAX, compileRankOrder("two-shot", ranks, 2, error)));
  EXPECT_EQ(error, "");
  Bundle bundle;
  bundle.backend = "cpu-threads";
  bundle.topologyFingerprint = "any";
  bundle.ranks = ranks;
  bundle.tables.push_back(std::move(table));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("collplan-fixed-order-" + std::to_string(ranks) + ".json"))
                               .string();
  saveBundleFile(bundle, path);
  return path;
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
