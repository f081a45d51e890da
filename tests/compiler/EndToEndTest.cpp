// Every algorithm x collective it implements, with one and two slices: compiled to a plan, run
// on cpu-threads for N = 2..8 with odd counts, in and out of place, results equal to the
// reference and identical on every rank.
#include "runtime/plan/BundleJson.h"
#include "tests/compiler/ScheduleTestSupport.h"
#include "tests/runtime/exec/ExecTestSupport.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

using namespace collplan;

namespace {

/// Writes a bundle whose tables (f32 and i32) serve every size with `plan`.
std::string writeBundle(const Plan &plan, const std::string &name) {
  Bundle bundle;
  bundle.backend = "cpu-threads";
  bundle.topologyFingerprint = "any";  // compiled for no particular topology
  bundle.ranks = plan.ranks;
  for (DType dtype : {DType::F32, DType::I32}) {
    BucketTable table;
    table.collective = plan.collective;
    table.dtype = dtype;
    table.op = plan.op;
    Bucket bucket;
    bucket.maxBytes = UINT64_MAX;
    bucket.plan = plan;
    bucket.winner.algorithm = plan.algorithm;
    table.buckets.push_back(bucket);
    bundle.tables.push_back(table);
  }
  std::string path = (std::filesystem::temp_directory_path() / ("collplan-e2e-" + name + ".json")).string();
  saveBundleFile(bundle, path);
  return path;
}

using Case = collplan::testing::AlgorithmCase;

class EndToEnd : public ::testing::TestWithParam<Case> {};

TEST_P(EndToEnd, MatchesReferenceOnEveryRank) {
  const Case &c = GetParam();
  for (int ranks = 2; ranks <= 8; ++ranks)
    for (const Plan &plan : collplan::testing::compiledPlans(c, ranks)) {
      const std::string variant = "slices " + plan.params.value("slices", nlohmann::json(1)).dump();
      std::string bundle = writeBundle(plan, c.algorithm->name + "-" +
                                                 std::string(toString(c.kind)) + "-" +
                                                 std::to_string(ranks));
      World world = World::threads(ranks, bundle.c_str());
      for (DType dtype : {DType::F32, DType::I32})
        for (size_t count : {size_t(1), size_t(ranks - 1), size_t(37), size_t(263)})
          for (auto placement : {test::Placement::OutOfPlace, test::Placement::InPlace}) {
            test::CollCase cc;
            cc.kind = c.kind;
            cc.dtype = dtype;
            cc.count = count;
            cc.placement = placement;
            cc.root = plan.root;
            std::vector<std::vector<uint8_t>> outputs(ranks);
            std::vector<std::string> failures(ranks);
            world.runThreads([&](Comm &comm) {
              int r = comm.rank();
              failures[r] = test::runAndCheck(comm, cc, &outputs[r]);
            });
            for (int r = 0; r < ranks; ++r)
              EXPECT_EQ(failures[r], "") << c.algorithm->name << " " << variant << " "
                                         << cc.describe(ranks) << " rank " << r;
          }
      std::remove(bundle.c_str());
    }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, EndToEnd,
                         ::testing::ValuesIn(collplan::testing::everyAlgorithmCase()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return collplan::testing::algorithmCaseName(info.param);
                         });

}  // namespace
