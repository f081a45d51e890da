// The example files in tests/runtime/plan/data: good ones load, each bad one fails with its field and reason.
#include "PlanTestUtil.h"

using namespace collplan;
using namespace collplan::testing;

TEST(PlanDataFiles, GoodExamplesLoad) {
  Plan plan = loadPlanFile(dataPath("allreduce_2rank.plan.json"));
  EXPECT_EQ(plan.ranks, 2);
  EXPECT_EQ(plan.algorithm, "ring");
  Bundle bundle = loadBundleFile(dataPath("allreduce_2rank.bundle.json"),
                                 {2, std::string("example-fingerprint"), std::string("cpu-threads")});
  ASSERT_NE(bundle.find(CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum), nullptr);
  EXPECT_EQ(bundle.tables[0].lookup(100).plan.algorithm, "ring");
}

struct BadFile {
  const char *name;
  const char *field;
  const char *reason;
};

TEST(PlanDataFiles, BadExamplesFailWithFieldAndReason) {
  const BadFile cases[] = {
      {"bad_not_json.plan.json", "", "not valid JSON"},
      {"bad_version.plan.json", "version",
       "unsupported plan format version 1 (this build reads version 2): version 1 predates "
       "channels"},
      {"bad_missing_units.plan.json", "units", "missing required field"},
      {"bad_out_of_range.plan.json", "programs[1].channels[0].ops[0].src[0]", "out of range"},
      {"bad_unmatched.plan.json", "programs[0].channels[0].ops[1].send[0]", "unmatched send"},
      {"bad_deadlock.plan.json", "programs[0].channels[0].ops[0]", "deadlock"},
      // A 2-rank ring with 2^24 units (the most a plan may have): its buffers alone span 2^26
      // units, and proving plans like it grows with the units without bound.
      {"bad_too_large_to_prove.plan.json", "",
       "too large to prove while loading: its buffers and ops span more than 67108864 units"},
  };
  for (const BadFile &c : cases) {
    SCOPED_TRACE(c.name);
    expectPlanError([&] { loadPlanFile(dataPath(c.name)); }, c.field, c.reason);
  }
  expectPlanError([] { loadBundleFile(dataPath("bad_bucket_gap.bundle.json")); },
                  "tables[0].buckets[1].min_bytes", "gap");
  expectPlanError(
      [] { loadBundleFile(dataPath("allreduce_2rank.bundle.json"), {8, {}, {}}); }, "ranks",
      "rank count mismatch");
}

TEST(PlanDataFiles, TooLargeToProveIsRefusedBeforeProving) {
  PlanLoadOptions small;
  small.maxProofUnits = 23;  // the 2-rank ring spans 24: 2 x (2 in + 2 out) + 16 in its ops
  expectPlanError([&] { loadPlanFile(dataPath("allreduce_2rank.plan.json"), small); }, "",
                  "span more than 23 units over all ranks");
  small.maxProofUnits = 24;
  EXPECT_NO_THROW(loadPlanFile(dataPath("allreduce_2rank.plan.json"), small));
  // Unproven, the oversized plan loads: its structure is valid.
  PlanLoadOptions unproven;
  unproven.verify = false;
  EXPECT_EQ(loadPlanFile(dataPath("bad_too_large_to_prove.plan.json"), unproven).units,
            16777216u);
}
