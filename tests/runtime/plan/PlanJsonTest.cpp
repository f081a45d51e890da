// Plan JSON round trips (every op kind, files) and the written format.
#include "PlanTestUtil.h"

#include "runtime/plan/BufRefText.h"
#include "runtime/plan/PlanValidate.h"

using namespace collplan;
using namespace collplan::testing;
using nlohmann::json;

namespace {

void expectSamePlan(const Plan &a, const Plan &b) {
  EXPECT_EQ(a.formatVersion, b.formatVersion);
  EXPECT_EQ(a.collective, b.collective);
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.root, b.root);
  EXPECT_EQ(a.algorithm, b.algorithm);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.units, b.units);
  EXPECT_EQ(a.scratchUnits, b.scratchUnits);
  EXPECT_EQ(a.inplaceSafe, b.inplaceSafe);
  EXPECT_DOUBLE_EQ(a.predicted.alphaRounds, b.predicted.alphaRounds);
  EXPECT_DOUBLE_EQ(a.predicted.beta, b.predicted.beta);
  ASSERT_EQ(a.programs.size(), b.programs.size());
  for (size_t r = 0; r < a.programs.size(); ++r) {
    const auto &x = a.programs[r].ops, &y = b.programs[r].ops;
    ASSERT_EQ(x.size(), y.size()) << "rank " << r;
    for (size_t i = 0; i < x.size(); ++i) {
      SCOPED_TRACE("rank " + std::to_string(r) + " op " + std::to_string(i));
      EXPECT_EQ(x[i].kind, y[i].kind);
      EXPECT_EQ(x[i].srcs, y[i].srcs);
      EXPECT_EQ(x[i].recv, y[i].recv);
      EXPECT_EQ(x[i].recvPos, y[i].recvPos);
      EXPECT_EQ(x[i].dsts, y[i].dsts);
      EXPECT_EQ(x[i].sends, y[i].sends);
      EXPECT_EQ(x[i].step, y[i].step);
    }
  }
}

}  // namespace

TEST(PlanJson, OpKindNamesRoundTrip) {
  for (int k = 0; k < 8; ++k) {
    OpKind kind = static_cast<OpKind>(k);
    EXPECT_EQ(parseOpKind(toString(kind)), kind);
  }
  EXPECT_FALSE(parseOpKind("recvreduce"));
  EXPECT_FALSE(parseOpKind(""));
}

TEST(PlanJson, BufRefTextRoundTrip) {
  BufRef r{BufferKind::Tmp, 3, 2};
  EXPECT_EQ(formatBufRef(r), "tmp[3:5]");
  BufRef parsed;
  std::string why;
  ASSERT_TRUE(parseBufRef("out[0:4294967295]", parsed, why)) << why;
  EXPECT_EQ(parsed, (BufRef{BufferKind::Out, 0, 4294967295u}));
  for (const char *bad : {"in[0:0]", "in[2:1]", "in[0-1]", "in0:1]", "in[0:1", "in[-1:2]",
                          "in[a:1]", "in[0:4294967296]", "in[ 0:1]", "scratch[0:1]", ""}) {
    EXPECT_FALSE(parseBufRef(bad, parsed, why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(PlanJson, EveryOpKindRoundTrips) {
  Plan plan = everyOpKindPlan();
  std::vector<bool> seen(8, false);
  for (const auto &program : plan.programs)
    for (const auto &op : program.ops) seen[size_t(op.kind)] = true;
  for (int k = 0; k < 8; ++k) EXPECT_TRUE(seen[size_t(k)]) << toString(OpKind(k));

  Plan loaded = planFromJson(planToJson(plan), "every-op");
  expectSamePlan(plan, loaded);
  EXPECT_EQ(planToJson(loaded), planToJson(plan));
}

TEST(PlanJson, RingRoundTripsForManyRankCounts) {
  for (int n : {1, 2, 3, 4, 7, 8}) {
    SCOPED_TRACE(n);
    Plan plan = ringAllReducePlan(n);
    expectSamePlan(plan, planFromJson(planToJson(plan), "ring"));
  }
}

TEST(PlanJson, RootedAndNonReducingRoundTrip) {
  Plan bcast = broadcastPlan2(1);
  Plan loaded = planFromJson(planToJson(bcast), "bcast");
  expectSamePlan(bcast, loaded);
  EXPECT_EQ(planToJson(bcast).at("root"), 1);
  Plan gather = allGatherPlan2();
  json doc = planToJson(gather);
  EXPECT_FALSE(doc.contains("op"));
  EXPECT_FALSE(doc.contains("root"));
  expectSamePlan(gather, planFromJson(doc, "allgather"));
}

TEST(PlanJson, WritesTheDocumentedFormatAndOmitsEmptyFields) {
  json doc = planToJson(ringAllReducePlan(2));
  EXPECT_EQ(doc.at("format"), "collplan-plan");
  EXPECT_EQ(doc.at("version"), 1);
  EXPECT_EQ(doc.at("collective"), "allreduce");
  EXPECT_EQ(doc.at("op"), "sum");
  EXPECT_EQ(doc.at("units"), 2);
  EXPECT_FALSE(doc.contains("scratch_units"));  // 0
  EXPECT_EQ(doc.at("inplace_safe"), true);
  const json &first = doc.at("programs").at(0).at("ops").at(0);
  EXPECT_EQ(first, json::parse(R"({"op":"send","src":["in[0:1]"],"send":[{"peer":1,"id":0}],
                                   "step":0})"));
  const json &last = doc.at("programs").at(1).at("ops").at(2);
  EXPECT_EQ(last, json::parse(R"({"op":"recv","recv":{"peer":0,"id":2},"dst":["out[1:2]"],
                                  "step":2})"));
}

TEST(PlanJson, FileRoundTrip) {
  Plan plan = ringAllReducePlan(4);
  const std::string path = scratchPath("ring4.plan.json");
  savePlanFile(plan, path);
  expectSamePlan(plan, loadPlanFile(path));
}

TEST(PlanJson, SaveRefusesAnInvalidPlan) {
  Plan plan = ringAllReducePlan(2);
  plan.programs[0].ops[0].srcs[0].offset = 7;
  expectPlanError([&] { savePlanFile(plan, scratchPath("bad.plan.json")); },
                  "programs[0].ops[0].src[0]", "out of range");
}

TEST(PlanJson, LargeRingValidatesQuickly) {
  // 512 ranks x 1023 ops: matching and deadlock check must stay near-linear.
  Plan plan = ringAllReducePlan(512);
  EXPECT_NO_THROW(validatePlan(plan, "ring512"));
}
