// Bundle JSON round trips and every bundle validation error (buckets, tables, expectations, nested plans).
#include "PlanTestUtil.h"

#include <fstream>

using namespace collplan;
using namespace collplan::testing;
using nlohmann::json;

namespace {

json &bucket(json &doc, int table, int index) { return doc["tables"][table]["buckets"][index]; }

}  // namespace

TEST(PlanBundle, RoundTrip) {
  Bundle bundle = ringBundle(2, {4096, 1 << 20});
  BucketTable &gather = bundle.tables.emplace_back();
  gather.collective = CollectiveKind::AllGather;
  gather.dtype = DType::BF16;
  Bucket &only = gather.buckets.emplace_back();
  only.maxBytes = UINT64_MAX;
  only.plan = allGatherPlan2();
  only.winner = {"two-shot", 3.0, 2.0};

  json doc = bundleToJson(bundle);
  EXPECT_EQ(doc.at("format"), "collplan-bundle");
  EXPECT_EQ(doc.at("tables").at(0).at("buckets").at(2).at("max_bytes").get<uint64_t>(),
            UINT64_MAX);
  EXPECT_FALSE(doc.at("tables").at(1).contains("op"));
  Bundle loaded = bundleFromJson(doc, "rt");
  EXPECT_EQ(bundleToJson(loaded), doc);
  EXPECT_EQ(loaded.topologyFingerprint, "fp-1234");
  EXPECT_EQ(loaded.backend, "cpu-threads");
  EXPECT_EQ(loaded.toolVersion, "0.1.0");
  EXPECT_EQ(loaded.tunerSettings.at("repetitions"), 20);
  ASSERT_EQ(loaded.tables.size(), 2u);
  const Bucket &b1 = loaded.tables[0].buckets[1];
  EXPECT_EQ(b1.minBytes, 4096u);
  EXPECT_EQ(b1.maxBytes, (1u << 20) - 1);
  EXPECT_EQ(b1.winner.algorithm, "ring");
  EXPECT_DOUBLE_EQ(b1.winner.measuredUs, 2.25);
  EXPECT_FALSE(b1.runnerUp.has_value());
  ASSERT_TRUE(loaded.tables[0].buckets[0].runnerUp.has_value());
  EXPECT_EQ(loaded.tables[0].buckets[0].runnerUp->algorithm, "rdh");
  EXPECT_EQ(loaded.find(CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum),
            &loaded.tables[0]);
  EXPECT_EQ(loaded.find(CollectiveKind::AllReduce, DType::F32, ReduceOp::Max), nullptr);
  EXPECT_EQ(loaded.find(CollectiveKind::AllReduce, DType::F64, ReduceOp::Sum), nullptr);
  // A non-reducing collective's table is found whatever op the caller passes.
  EXPECT_EQ(loaded.find(CollectiveKind::AllGather, DType::BF16, ReduceOp::Sum),
            &loaded.tables[1]);
  EXPECT_EQ(loaded.find(CollectiveKind::AllGather, DType::BF16, std::nullopt), &loaded.tables[1]);
}

TEST(PlanBundle, FileRoundTripAndExpectations) {
  Bundle bundle = ringBundle(2, {8192});
  const std::string path = scratchPath("ring2.bundle.json");
  saveBundleFile(bundle, path);
  BundleExpectations ok{2, std::string("fp-1234"), std::string("cpu-threads")};
  Bundle loaded = loadBundleFile(path, ok);
  EXPECT_EQ(bundleToJson(loaded), bundleToJson(bundle));

  expectPlanError([&] { loadBundleFile(path, {4, {}, {}}); }, "ranks",
                  "rank count mismatch: the bundle was tuned for 2 ranks but 4 were expected");
  expectPlanError([&] { loadBundleFile(path, {{}, std::string("fp-9999"), {}}); },
                  "topology_fingerprint",
                  "the bundle was tuned for topology \"fp-1234\" but this topology is "
                  "\"fp-9999\"");
  expectPlanError([&] { loadBundleFile(path, {{}, {}, std::string("mpi")}); }, "backend",
                  "tuned for backend \"cpu-threads\" but \"mpi\" was expected");
}

TEST(PlanBundle, NotJsonAndHeaderErrors) {
  const std::string path = scratchPath("garbage.bundle.json");
  std::ofstream(path) << "collplan";
  expectPlanError([&] { loadBundleFile(path); }, "", "not valid JSON");
  Bundle b = ringBundle(2, {});
  expectBundleJsonError(b, [](json &d) { d["format"] = "collplan-plan"; }, "format",
                        "expected \"collplan-bundle\"");
  expectBundleJsonError(b, [](json &d) { d["version"] = 3; }, "version",
                        "unsupported bundle format version 3");
  expectBundleJsonError(b, [](json &d) { d["version"] = 1; }, "version",
                        "version 1 predates channels and transfers matched in program order; "
                        "regenerate the file with this build (plan-tune, or plans/regenerate.sh "
                        "for the shipped bundles)");
  for (const char *field : {"topology_fingerprint", "backend", "ranks", "tables"})
    expectBundleJsonError(b, [&](json &d) { d.erase(field); }, field, "missing required field");
  expectBundleJsonError(b, [](json &d) { d["ranks"] = 0; }, "ranks", "must be at least 1");
  expectBundleJsonError(b, [](json &d) { d["ranks"] = 1000000000; }, "ranks",
                        "ranks 1000000000 is above the limit of 65536");
  expectBundleJsonError(b, [](json &d) { d["backend"] = ""; }, "backend", "must not be empty");
  expectBundleJsonError(b, [](json &d) { d["tuner"] = 5; }, "tuner", "expected an object");
  expectBundleJsonError(b, [](json &d) { d["tables"][0]["dtype"] = "f128"; }, "tables[0].dtype",
                        "unknown dtype \"f128\"");
  expectBundleJsonError(b, [](json &d) { d["tables"][0].erase("op"); }, "tables[0].op",
                        "allreduce tables need a reduction op");
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 0).erase("winner"); },
                        "tables[0].buckets[0].winner", "missing required field");
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 0)["winner"]["measured_us"] = "fast"; },
                        "tables[0].buckets[0].winner.measured_us", "expected a number");
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 0)["runner_up"] = json::object(); },
                        "tables[0].buckets[0].runner_up.algorithm", "missing required field");
}

TEST(PlanBundle, BucketBoundsAcceptUint64Max) {
  json doc = bundleToJson(ringBundle(2, {}));
  bucket(doc, 0, 0)["max_bytes"] = json::parse("18446744073709551615");
  EXPECT_EQ(bundleFromJson(doc, "max").tables[0].buckets[0].maxBytes, UINT64_MAX);
  bucket(doc, 0, 0)["max_bytes"] = json::parse("18446744073709551616");
  expectPlanError([&] { bundleFromJson(doc, "max"); }, "tables[0].buckets[0].max_bytes",
                  "expected a non-negative integer, got a floating-point number");
  bucket(doc, 0, 0)["max_bytes"] = -1;
  expectPlanError([&] { bundleFromJson(doc, "max"); }, "tables[0].buckets[0].max_bytes",
                  "must be non-negative");
}

TEST(PlanBundle, BucketGapsAndOverlaps) {
  Bundle b = ringBundle(2, {100, 200});  // [0,99] [100,199] [200,MAX]
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 1)["min_bytes"] = 101; },
                        "tables[0].buckets[1].min_bytes",
                        "gap: sizes 100..100 are not covered (previous bucket is [0, 99])");
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 1)["min_bytes"] = 50; },
                        "tables[0].buckets[1].min_bytes",
                        "overlap: bucket starts at 50 inside the previous bucket [0, 99]");
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 0)["min_bytes"] = 1; },
                        "tables[0].buckets[0].min_bytes", "gap: the first bucket must start at 0");
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 2)["max_bytes"] = 1000; },
                        "tables[0].buckets[2].max_bytes",
                        "gap: the last bucket must end at 18446744073709551615");
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 1)["max_bytes"] = 50; },
                        "tables[0].buckets[1].max_bytes", "bucket is empty");
  expectBundleJsonError(b, [](json &d) { std::swap(bucket(d, 0, 1), bucket(d, 0, 2)); },
                        "tables[0].buckets[1].min_bytes", "gap: sizes 100..199 are not covered");
  expectBundleJsonError(b, [](json &d) { d["tables"][0]["buckets"] = json::array(); },
                        "tables[0].buckets", "must hold at least one bucket");
  expectBundleJsonError(
      b, [](json &d) { d["tables"][0]["buckets"].push_back(bucket(d, 0, 2)); },
      "tables[0].buckets[3].min_bytes", "overlap");
}

TEST(PlanBundle, PlansMustMatchTheirTableAndBundle) {
  Bundle b = ringBundle(2, {100});
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 1)["plan"] = planToJson(allGatherPlan2()); },
                        "tables[0].buckets[1].plan.collective",
                        "plan is allgather but its table is allreduce");
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 1)["plan"]["op"] = "max"; },
                        "tables[0].buckets[1].plan.op",
                        "plan op is max but its table's op is sum");
  expectBundleJsonError(b, [](json &d) { bucket(d, 0, 0)["plan"] = planToJson(ringAllReducePlan(3)); },
                        "tables[0].buckets[0].plan.ranks",
                        "plan has 3 ranks but the bundle has 2");
  // Errors inside a nested plan carry the full path.
  expectBundleJsonError(
      b, [](json &d) { bucket(d, 0, 1)["plan"]["programs"][1]["channels"][0]["ops"][0]["src"][0] = "in[0:9]"; },
      "tables[0].buckets[1].plan.programs[1].channels[0].ops[0].src[0]", "out of range");
  expectBundleJsonError(
      b, [](json &d) { bucket(d, 0, 0)["plan"]["programs"][1]["channels"][0]["ops"].erase(2); },
      "tables[0].buckets[0].plan.programs[0].channels[0].ops[1].send[0]", "unmatched send");
}

TEST(PlanBundle, DuplicateTables) {
  Bundle b = ringBundle(2, {});
  b.tables.push_back(b.tables[0]);
  expectPlanError([&] { bundleFromJson(bundleToJson(b), "dup.bundle.json"); }, "tables[1]",
                  "duplicate table for (allreduce, f32, sum), already defined by tables[0]");
  b.tables[1].op = ReduceOp::Max;
  for (Bucket &bucket : b.tables[1].buckets) bucket.plan.op = ReduceOp::Max;
  EXPECT_NO_THROW(bundleFromJson(bundleToJson(b), "two-ops"));
}

TEST(PlanBundle, SaveRefusesAnInvalidBundle) {
  Bundle b = ringBundle(2, {100});
  b.tables[0].buckets[1].minBytes = 99;
  expectPlanError([&] { saveBundleFile(b, scratchPath("bad.bundle.json")); },
                  "tables[0].buckets[1].min_bytes", "overlap");
  Bundle c = ringBundle(2, {});
  c.tables[0].buckets[0].plan.programs[1].channels[0].ops[0].srcs[0].offset = 5;
  expectPlanError([&] { validateBundle(c, "tuner"); },
                  "tables[0].buckets[0].plan.programs[1].channels[0].ops[0].src[0]", "out of range");
}

TEST(PlanBundle, CborRoundTripKeepsTheTopology) {
  Bundle bundle = ringBundle(2, {4096});
  bundle.topology = json::parse(R"({"name": "two", "devices": []})");
  const std::string path = scratchPath("ring2.bundle.cbor");
  saveBundleFile(bundle, path);
  const Bundle loaded = loadBundleFile(path);
  EXPECT_EQ(bundleToJson(loaded), bundleToJson(bundle));
  EXPECT_EQ(loaded.topology.at("name"), "two");
  expectBundleJsonError(bundle, [](json &d) { d["topology"] = "trn2"; }, "topology",
                        "expected a topology object, got a string");
}

TEST(PlanBundle, OneRankLoadsOnlyItsProgramInEveryPlan) {
  const Bundle bundle = ringBundle(4, {4096, 1 << 20});
  const std::string path = scratchPath("ring4.bundle.json");
  saveBundleFile(bundle, path);
  PlanLoadOptions only;
  only.onlyRank = 3;
  const Bundle mine = loadBundleFile(path, {4, {}, {}}, only);
  ASSERT_EQ(mine.tables.size(), 1u);
  for (const Bucket &b : mine.tables[0].buckets) {
    EXPECT_EQ(b.plan.onlyRank, 3);
    for (int r = 0; r < 4; ++r)
      EXPECT_EQ(b.plan.programs[size_t(r)].numOps(),
                r == 3 ? bundle.tables[0].buckets[0].plan.programs[3].numOps() : 0u);
  }
  // A broken program of another rank does not stop this rank: it is never read.
  json doc = bundleToJson(bundle);
  bucket(doc, 0, 1)["plan"]["programs"][0]["channels"][0]["ops"][0]["src"][0] = "in[7:9]";
  EXPECT_NO_THROW(bundleFromJson(doc, "other-rank-broken", {}, only));
  expectPlanError([&] { bundleFromJson(doc, "other-rank-broken"); },
                  "tables[0].buckets[1].plan.programs[0].channels[0].ops[0].src[0]", "out of range");
}
