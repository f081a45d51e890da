// Plan JSON round trips (every op kind, files) and the written format.
#include "PlanTestUtil.h"

#include "runtime/plan/BufRefText.h"
#include "runtime/plan/PlanValidate.h"

#include <fstream>
#include <iterator>

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
    ASSERT_EQ(a.programs[r].channels.size(), b.programs[r].channels.size()) << "rank " << r;
    for (size_t c = 0; c < a.programs[r].channels.size(); ++c) {
      const auto &x = a.programs[r].channels[c].ops, &y = b.programs[r].channels[c].ops;
      ASSERT_EQ(x.size(), y.size()) << "rank " << r << " channel " << c;
      for (size_t i = 0; i < x.size(); ++i) {
        SCOPED_TRACE("rank " + std::to_string(r) + " channel " + std::to_string(c) + " op " +
                     std::to_string(i));
        EXPECT_EQ(x[i].kind, y[i].kind);
        EXPECT_EQ(x[i].srcs, y[i].srcs);
        EXPECT_EQ(x[i].recv, y[i].recv);
        EXPECT_EQ(x[i].recvPos, y[i].recvPos);
        EXPECT_EQ(x[i].dsts, y[i].dsts);
        EXPECT_EQ(x[i].sends, y[i].sends);
        EXPECT_EQ(x[i].after, y[i].after);
        EXPECT_EQ(x[i].step, y[i].step);
      }
    }
  }
}

/// A 2-rank allgather on two channels: channel 1 copies the own block out, channel 0 exchanges
/// the blocks and, on rank 1, waits for channel 1's copy before reading what it wrote.
Plan twoChannelPlan() {
  Plan plan = allGatherPlan2();
  for (int r = 0; r < 2; ++r) {
    const int peer = 1 - r;
    RankProgram &p = plan.programs[size_t(r)];
    p.channels.clear();
    PlanOp copy;
    copy.kind = OpKind::Copy;
    copy.srcs = {in(0, 1)};
    copy.dsts = {out(uint32_t(r), uint32_t(r) + 1)};
    PlanOp send;
    send.kind = OpKind::Send;
    send.srcs = {r == 1 ? out(1, 2) : in(0, 1)};
    send.sends = {peer};
    if (r == 1) send.after = {OpRef{1, 0}};
    PlanOp recv;
    recv.kind = OpKind::Recv;
    recv.recv = peer;
    recv.dsts = {out(uint32_t(peer), uint32_t(peer) + 1)};
    p.channel(0) = {send, recv};
    p.channel(1) = {copy};
  }
  return plan;
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
    for (const auto &op : program.channels.at(0).ops) seen[size_t(op.kind)] = true;
  for (int k = 0; k < 8; ++k) EXPECT_TRUE(seen[size_t(k)]) << toString(OpKind(k));

  Plan loaded = planFromJson(planToJson(plan), "every-op", collplan::testing::structureOnly());
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

TEST(PlanJson, ChannelsAndAfterReferencesRoundTrip) {
  Plan plan = twoChannelPlan();
  EXPECT_NO_THROW(validatePlan(plan, "two-channel"));
  json doc = planToJson(plan);
  EXPECT_EQ(doc.at("programs").at(1).at("channels").at(0).at("ops").at(0).at("after"),
            json::parse(R"([{"channel":1,"op":0}])"));
  expectSamePlan(plan, planFromJson(doc, "two-channel"));
}

TEST(PlanJson, WritesTheDocumentedFormatAndOmitsEmptyFields) {
  json doc = planToJson(ringAllReducePlan(2));
  EXPECT_EQ(doc.at("format"), "collplan-plan");
  EXPECT_EQ(doc.at("version"), 2);
  EXPECT_EQ(doc.at("collective"), "allreduce");
  EXPECT_EQ(doc.at("op"), "sum");
  EXPECT_EQ(doc.at("units"), 2);
  EXPECT_FALSE(doc.contains("scratch_units"));  // 0
  EXPECT_EQ(doc.at("inplace_safe"), true);
  const json &first = doc.at("programs").at(0).at("channels").at(0).at("ops").at(0);
  EXPECT_EQ(first, json::parse(R"({"op":"send","src":["in[0:1]"],"send":[1],"step":0})"));
  const json &last = doc.at("programs").at(1).at("channels").at(0).at("ops").at(2);
  EXPECT_EQ(last, json::parse(R"({"op":"recv","recv":0,"dst":["out[1:2]"],"step":2})"));
}

TEST(PlanJson, FileRoundTripIsCompactJson) {
  Plan plan = ringAllReducePlan(4);
  const std::string path = scratchPath("ring4.plan.json");
  savePlanFile(plan, path);
  expectSamePlan(plan, loadPlanFile(path));
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, planToJson(plan).dump() + "\n");  // no indentation
}

// Writes are checked through the close: a device that refuses data is an error, not success.
TEST(PlanJson, SavingToAFullDeviceOrADirectoryFailsClearly) {
  expectPlanError([] { savePlanFile(ringAllReducePlan(2), "/dev/full"); }, "",
                  "cannot write: No space left on device");
  expectPlanError([] { savePlanFile(ringAllReducePlan(2), "/tmp"); }, "",
                  "cannot write: Is a directory");
}

TEST(PlanJson, CborFileRoundTrip) {
  Plan plan = twoChannelPlan();
  const std::string cbor = scratchPath("two-channel.plan.cbor");
  savePlanFile(plan, cbor);  // the extension picks CBOR
  std::ifstream in(cbor, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  EXPECT_EQ(json::from_cbor(bytes), planToJson(plan));
  expectSamePlan(plan, loadPlanFile(cbor));
  // Either encoding under any name: loaders read the first byte, not the extension.
  const std::string json = scratchPath("ring4-as-cbor.plan.json");
  savePlanFile(ringAllReducePlan(4), json, DocumentEncoding::Cbor);
  expectSamePlan(ringAllReducePlan(4), loadPlanFile(json));
}

TEST(PlanJson, OneRankLoadsOnlyItsProgram) {
  Plan plan = ringAllReducePlan(8);
  for (DocumentEncoding encoding : {DocumentEncoding::Json, DocumentEncoding::Cbor}) {
    const std::string path = scratchPath("ring8-" + std::string(toString(encoding)));
    savePlanFile(plan, path, encoding);
    PlanLoadOptions only;
    only.onlyRank = 5;
    const Plan mine = loadPlanFile(path, only);
    EXPECT_EQ(mine.onlyRank, 5);
    ASSERT_EQ(mine.programs.size(), 8u);
    for (int r = 0; r < 8; ++r)
      EXPECT_EQ(mine.programs[size_t(r)].numOps(), r == 5 ? plan.programs[5].numOps() : 0u);
    EXPECT_EQ(planToJson(mine).at("programs").at(5), planToJson(plan).at("programs").at(5));
    // A partial plan cannot be written back: the other ranks' programs are missing.
    expectPlanError([&] { savePlanFile(mine, scratchPath("partial.plan.json")); }, "programs",
                    "holds only the program of rank 5 (loaded for one rank): a plan file needs "
                    "every rank's program");
  }
}

TEST(PlanJson, OneRankLoadStillValidatesItsOwnProgram) {
  Plan plan = ringAllReducePlan(4);
  json doc = planToJson(plan);
  doc["programs"][2]["channels"][0]["ops"][0]["src"][0] = "in[9:10]";
  doc["programs"][3]["channels"][0]["ops"][0]["src"][0] = "nonsense";  // skipped for rank 2
  PlanLoadOptions only;
  only.onlyRank = 2;
  expectPlanError([&] { planFromJson(doc, "test.plan.json", only); },
                  "programs[2].channels[0].ops[0].src[0]", "out of range");
  only.onlyRank = 1;
  EXPECT_NO_THROW(planFromJson(doc, "test.plan.json", only));
}

TEST(PlanJson, SaveRefusesAnInvalidPlan) {
  Plan plan = ringAllReducePlan(2);
  plan.programs[0].channels[0].ops[0].srcs[0].offset = 7;
  expectPlanError([&] { savePlanFile(plan, scratchPath("bad.plan.json")); },
                  "programs[0].channels[0].ops[0].src[0]", "out of range");
}

TEST(PlanJson, LargeRingValidatesQuickly) {
  // 512 ranks x 1023 ops: matching and deadlock check must stay near-linear.
  Plan plan = ringAllReducePlan(512);
  EXPECT_NO_THROW(validatePlan(plan, "ring512"));
}
