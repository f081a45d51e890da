// Symmetric plans: detection, instantiation, the "symmetric" file form, one rank's load, and every
// refusal of a form that cannot describe the plan or a claim that does not hold.
#include "PlanTestUtil.h"

#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/Symmetry.h"

using namespace collplan;
using namespace collplan::testing;
using nlohmann::json;

namespace {

/// Pairwise all-to-all on 4 ranks: rank r exchanges block r XOR k with rank r XOR k in turn.
/// XOR symmetric with one unit per chunk. (Recursive doubling allreduce is not: each rank folds
/// the lower rank's value first, so where the received operand goes depends on the rank.)
Plan pairwiseAllToAllPlan4() {
  Plan plan;
  plan.collective = CollectiveKind::AllToAll;
  plan.ranks = 4;
  plan.algorithm = "pairwise";
  plan.units = 4;
  plan.programs.resize(4);
  for (int r = 0; r < 4; ++r) {
    std::vector<PlanOp> &ops = plan.programs[size_t(r)].channel(0);
    const uint32_t own = uint32_t(r);
    ops.push_back(makeOp(OpKind::Copy, {in(own, own + 1)}, {}, {out(own, own + 1)}, {}, 0));
    for (int k = 1; k < 4; ++k) {
      const uint32_t peer = uint32_t(r ^ k);
      ops.push_back(makeOp(OpKind::Send, {in(peer, peer + 1)}, {}, {}, {r ^ k}, k));
      ops.push_back(makeOp(OpKind::Recv, {}, r ^ k, {out(peer, peer + 1)}, {}, k));
    }
  }
  return plan;
}

/// Recursive doubling allreduce on 4 ranks (units 1): partners swap partial results and each
/// folds the lower rank's first, so the received operand's place depends on the rank.
Plan recursiveDoublingPlan4() {
  Plan plan;
  plan.collective = CollectiveKind::AllReduce;
  plan.ranks = 4;
  plan.op = ReduceOp::Sum;
  plan.algorithm = "recursive-doubling";
  plan.units = 1;
  plan.scratchUnits = 1;
  plan.programs.resize(4);
  for (int r = 0; r < 4; ++r) {
    std::vector<PlanOp> &ops = plan.programs[size_t(r)].channel(0);
    ops.push_back(makeOp(OpKind::Send, {in(0, 1)}, {}, {}, {r ^ 1}, 0));
    PlanOp first = makeOp(OpKind::RecvReduceSend, {in(0, 1)}, r ^ 1, {tmp(0, 1)}, {r ^ 2}, 1);
    first.recvPos = (r ^ 1) < r ? 0 : 1;
    ops.push_back(first);
    PlanOp second = makeOp(OpKind::RecvReduce, {tmp(0, 1)}, r ^ 2, {out(0, 1)}, {}, 2);
    second.recvPos = (r ^ 2) < r ? 0 : 1;
    ops.push_back(second);
  }
  return plan;
}

void expectSamePrograms(const Plan &a, const Plan &b) {
  ASSERT_EQ(a.programs.size(), b.programs.size());
  for (size_t r = 0; r < a.programs.size(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    ASSERT_EQ(a.programs[r].channels.size(), b.programs[r].channels.size());
    for (size_t c = 0; c < a.programs[r].channels.size(); ++c) {
      const std::vector<PlanOp> &x = a.programs[r].channels[c].ops;
      const std::vector<PlanOp> &y = b.programs[r].channels[c].ops;
      ASSERT_EQ(x.size(), y.size());
      for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(planOpToJson(x[i]), planOpToJson(y[i]));
    }
  }
}

/// The symmetric document of `plan` (detected), for edits.
json symmetricDocument(Plan plan) {
  plan.symmetry = findSymmetry(plan);
  EXPECT_TRUE(plan.symmetry.has_value());
  return planToJson(plan);
}

void expectSymmetricError(const Plan &plan, const std::function<void(json &)> &edit,
                          const std::string &field, const std::string &reason) {
  json doc = symmetricDocument(plan);
  edit(doc);
  expectPlanError([&] { planFromJson(doc, "test.plan.json"); }, field, reason);
}

}  // namespace

TEST(Symmetry, FindsTheGroupAndStrideOfSymmetricPlans) {
  for (int n : {2, 3, 4, 7, 8}) {
    SCOPED_TRACE("ring on " + std::to_string(n) + " ranks");
    const std::optional<PlanSymmetry> ring = findSymmetry(ringAllReducePlan(n));
    ASSERT_TRUE(ring.has_value());
    EXPECT_EQ(ring->group, SymmetryGroup::Rotation);
    EXPECT_EQ(ring->stride, 1u);
  }
  const std::optional<PlanSymmetry> pairwise = findSymmetry(pairwiseAllToAllPlan4());
  ASSERT_TRUE(pairwise.has_value());
  EXPECT_EQ(pairwise->group, SymmetryGroup::Xor);
  EXPECT_EQ(pairwise->stride, 1u);
}

TEST(Symmetry, AFoldInRankOrderIsSymmetricThroughRankOrderedReceives) {
  const Plan plan = recursiveDoublingPlan4();
  const std::optional<PlanSymmetry> found = findSymmetry(plan);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->group, SymmetryGroup::Xor);
  EXPECT_EQ(found->stride, 0u);
  EXPECT_EQ(found->rankOrderedReceives, (std::vector<OpRef>{{0, 1}, {0, 2}}));
  // Rank 3 receives from 2, then from 1: both lower, both operands first.
  const RankProgram rank3 = instantiateProgram(plan, *found, plan.programs[0], 3);
  EXPECT_EQ(rank3.channels[0].ops[1].recvPos, 0u);
  EXPECT_EQ(rank3.channels[0].ops[2].recvPos, 0u);

  Plan stored = plan;
  stored.symmetry = found;
  const json doc = planToJson(stored);
  EXPECT_EQ(doc["symmetric"]["rank_ordered_receives"],
            json::parse(R"([{"channel":0,"op":1},{"channel":0,"op":2}])"));
  expectSamePrograms(planFromJson(doc, "rd.plan.json"), plan);  // proven: one fold everywhere
}

TEST(Symmetry, RankOrderedReceivesMustNameOpsThatCanTakeThem) {
  const Plan plan = recursiveDoublingPlan4();
  expectSymmetricError(plan, [](json &d) { d["symmetric"]["rank_ordered_receives"][0]["op"] = 9; },
                       "symmetric.rank_ordered_receives[0]",
                       "names channels[0].ops[9], which rank 0's program does not have");
  expectSymmetricError(plan, [](json &d) { d["symmetric"]["rank_ordered_receives"][0]["op"] = 0; },
                       "symmetric.rank_ordered_receives[0]",
                       "names channels[0].ops[0], which does not receive beside one src");
  expectSymmetricError(plan, [](json &d) { d["symmetric"]["rank_ordered_receives"][1]["op"] = 1; },
                       "symmetric.rank_ordered_receives[1]",
                       "names channels[0].ops[1] twice (rank_ordered_receives[0] already does)");
  expectSymmetricError(plan, [](json &d) { d["symmetric"]["rank_ordered_receives"] = 1; },
                       "symmetric.rank_ordered_receives", "expected an array");
  // Without them the instantiated ranks fold in different orders: the proof refuses it.
  expectSymmetricError(plan, [](json &d) { d["symmetric"].erase("rank_ordered_receives"); },
                       "programs[1].channels[0].ops[2]", "reduced in another order than on rank 0");
}

TEST(Symmetry, FindsNoneWhereTheProgramsDiffer) {
  Plan ring = ringAllReducePlan(4);
  ring.programs[2].channels[0].ops[1].step = 7;
  EXPECT_FALSE(findSymmetry(ring).has_value());
  EXPECT_FALSE(findSymmetry(ringAllReducePlan(1)).has_value());  // one rank: nothing to share
  EXPECT_FALSE(findSymmetry(broadcastPlan2(0)).has_value());     // rooted
}

TEST(Symmetry, InstantiationMapsPeersAndChunks) {
  const Plan ring = ringAllReducePlan(5);
  const PlanSymmetry rotation{SymmetryGroup::Rotation, 1};
  const RankProgram rank3 = instantiateProgram(ring, rotation, ring.programs[0], 3);
  // Rank 0 first sends in[0:1] to rank 1; rank 3 sends in[3:4] to rank 4.
  const PlanOp &first = rank3.channels[0].ops[0];
  EXPECT_EQ(first.srcs[0], in(3, 4));
  EXPECT_EQ(first.sends, std::vector<int32_t>{4});
  // Rank 0 receives from rank 4; rank 3 from rank 2.
  EXPECT_EQ(rank3.channels[0].ops[1].recv, 2);
  EXPECT_EQ(symmetricImage(SymmetryGroup::Rotation, 4, 3, 5), 2);
  EXPECT_EQ(symmetricImage(SymmetryGroup::Xor, 5, 3, 8), 6);
}

TEST(Symmetry, AnXorRunOfWholeChunksMapsToTheRunItsImagesCover) {
  // Rank 0 of a recursive-halving-like reduce-scatter sends chunks 2-3 to rank 2: rank 1 sends
  // the same run (1 XOR 2-3 = 3, 2), rank 2 chunks 0-1 to rank 0.
  Plan plan;
  plan.collective = CollectiveKind::ReduceScatter;
  plan.ranks = 4;
  plan.op = ReduceOp::Sum;
  plan.units = 4;
  RankProgram base;
  base.channel(0).push_back(makeOp(OpKind::Send, {in(2, 4)}, {}, {}, {2}));
  const PlanSymmetry xorGroup{SymmetryGroup::Xor, 1};
  checkSymmetryForm(plan, xorGroup, base, "x", FieldPath());
  EXPECT_EQ(instantiateProgram(plan, xorGroup, base, 1).channels[0].ops[0].srcs[0], in(2, 4));
  EXPECT_EQ(instantiateProgram(plan, xorGroup, base, 2).channels[0].ops[0].srcs[0], in(0, 2));
  EXPECT_EQ(instantiateProgram(plan, xorGroup, base, 2).channels[0].ops[0].sends[0], 0);
}

TEST(Symmetry, TheFileStoresRankZerosProgramAndEveryLoadInstantiatesIt) {
  Plan ring = ringAllReducePlan(6);
  ring.symmetry = findSymmetry(ring);
  const json doc = planToJson(ring);
  EXPECT_FALSE(doc.contains("programs"));
  EXPECT_EQ(doc["symmetric"]["group"], "rotation");
  EXPECT_EQ(doc["symmetric"]["stride"], 1);
  EXPECT_EQ(doc["symmetric"]["program"]["channels"][0]["ops"].size(), ring.programs[0].numOps());

  const Plan loaded = planFromJson(doc, "ring.plan.json");  // validated and proven
  ASSERT_TRUE(loaded.symmetry.has_value());
  EXPECT_EQ(*loaded.symmetry, *ring.symmetry);
  expectSamePrograms(loaded, ring);

  for (int r = 0; r < 6; ++r) {
    PlanLoadOptions options;
    options.onlyRank = r;
    const Plan mine = planFromJson(doc, "ring.plan.json", options);
    EXPECT_EQ(mine.onlyRank, r);
    for (int other = 0; other < 6; ++other)
      if (other != r) EXPECT_TRUE(mine.programs[size_t(other)].channels.empty());
    ASSERT_EQ(mine.programs[size_t(r)].numOps(), ring.programs[size_t(r)].numOps());
    for (size_t i = 0; i < ring.programs[size_t(r)].numOps(); ++i)
      EXPECT_EQ(planOpToJson(mine.programs[size_t(r)].channels[0].ops[i]),
                planOpToJson(ring.programs[size_t(r)].channels[0].ops[i]));
  }
}

TEST(Symmetry, SavedAndReloadedThroughAFileInBothEncodings) {
  Plan plan = pairwiseAllToAllPlan4();
  plan.symmetry = findSymmetry(plan);
  for (const char *name : {"xor.plan.json", "xor.plan.cbor"}) {
    const std::string path = scratchPath(name);
    savePlanFile(plan, path);
    const Plan loaded = loadPlanFile(path);
    ASSERT_TRUE(loaded.symmetry.has_value()) << name;
    EXPECT_EQ(loaded.symmetry->group, SymmetryGroup::Xor);
    expectSamePrograms(loaded, plan);
  }
}

TEST(Symmetry, AClaimThatDoesNotHoldIsRefusedWithTheRankAndOp) {
  Plan ring = ringAllReducePlan(4);
  ring.symmetry = PlanSymmetry{SymmetryGroup::Rotation, 1};
  ring.programs[2].channels[0].ops[1].srcs[0] = in(3, 4);
  expectPlanError([&] { validatePlan(ring, "claim"); }, "programs[2].channels[0].ops[1]",
                  "breaks the plan's rotation symmetry (stride 1): is {");
  expectPlanError([&] { savePlanFile(ring, scratchPath("claim.plan.json")); },
                  "programs[2].channels[0].ops[1]", "but rank 0's op instantiated for rank 2 is");

  Plan extraChannel = ringAllReducePlan(4);
  extraChannel.symmetry = PlanSymmetry{SymmetryGroup::Rotation, 1};
  extraChannel.programs[3].channel(1);
  expectPlanError([&] { validatePlan(extraChannel, "claim"); }, "programs[3]",
                  "has 2 channels where rank 0's program has 1");

  Plan shorter = ringAllReducePlan(4);
  shorter.symmetry = PlanSymmetry{SymmetryGroup::Rotation, 1};
  shorter.programs[1].channels[0].ops.pop_back();
  expectPlanError([&] { validatePlan(shorter, "claim"); }, "programs[1].channels[0]",
                  "has 6 ops where rank 0's has 7");

  Plan wrongGroup = ringAllReducePlan(4);
  wrongGroup.symmetry = PlanSymmetry{SymmetryGroup::Xor, 1};
  expectPlanError([&] { validatePlan(wrongGroup, "claim"); }, "programs[1].channels[0].ops[0]",
                  "breaks the plan's xor symmetry (stride 1)");
}

TEST(Symmetry, TheDocumentHasEitherProgramsOrSymmetric) {
  const Plan ring = ringAllReducePlan(3);
  json both = symmetricDocument(ring);
  both["programs"] = planToJson(ring)["programs"];
  expectPlanError([&] { planFromJson(both, "test.plan.json"); }, "symmetric",
                  "either \"programs\" (one per rank) or \"symmetric\"");
  expectSymmetricError(ring, [](json &d) { d.erase("symmetric"); }, "programs",
                       "missing required field");
  PlanLoadOptions beyond;
  beyond.onlyRank = 3;
  const json doc = symmetricDocument(ring);
  expectPlanError([&] { planFromJson(doc, "test.plan.json", beyond); }, "symmetric",
                  "has no program for rank 3 (ranks is 3)");
}

TEST(Symmetry, EveryMalformedSymmetricMemberIsNamed) {
  const Plan ring = ringAllReducePlan(4);
  expectSymmetricError(ring, [](json &d) { d["symmetric"]["group"] = "mirror"; },
                       "symmetric.group", "unknown symmetry group \"mirror\" (expected one of: "
                                          "rotation, xor)");
  expectSymmetricError(ring, [](json &d) { d["symmetric"].erase("stride"); }, "symmetric.stride",
                       "missing required field");
  expectSymmetricError(ring, [](json &d) { d["symmetric"]["stride"] = -1; }, "symmetric.stride",
                       "must be between 0 and");
  expectSymmetricError(ring, [](json &d) { d["symmetric"]["stride"] = 3; }, "symmetric.stride",
                       "3 is neither 0 nor units / ranks (4 / 4)");
  expectSymmetricError(ring, [](json &d) { d["symmetric"]["program"]["rank"] = 0; },
                       "symmetric.program.rank", "unknown field");
  expectSymmetricError(ring, [](json &d) { d["symmetric"]["extra"] = 0; }, "symmetric.extra",
                       "unknown field");
  expectSymmetricError(
      ring, [](json &d) { d["symmetric"]["program"]["channels"][0]["ops"][0]["src"][0] = "in[9"; },
      "symmetric.program.channels[0].ops[0].src[0]", "");
}

TEST(Symmetry, FormsThatCannotDescribeThePlanAreRefused) {
  const Plan ring = ringAllReducePlan(3);
  expectSymmetricError(ring, [](json &d) { d["symmetric"]["group"] = "xor"; }, "symmetric.group",
                       "xor needs a power-of-two rank count, not 3");
  const Plan four = ringAllReducePlan(4);
  expectSymmetricError(
      four,
      [](json &d) { d["symmetric"]["program"]["channels"][0]["ops"][0]["src"][0] = "in[0:2]"; },
      "symmetric.program.channels[0].ops[0].src[0]",
      "under rotation symmetry (stride 1): in[0:2] covers chunks 0-1 (1 units each); rotated by "
      "some rank they wrap past the buffer's end");
  json xorDoc = symmetricDocument(four);
  xorDoc["symmetric"]["group"] = "xor";
  xorDoc["symmetric"]["program"]["channels"][0]["ops"][0]["src"][0] = "in[1:3]";
  expectPlanError([&] { planFromJson(xorDoc, "test.plan.json"); },
                  "symmetric.program.channels[0].ops[0].src[0]",
                  "XOR maps only single chunks or aligned power-of-two runs of whole chunks");

  Plan broadcast = broadcastPlan2(0);
  json rooted = planToJson(broadcast);
  rooted["symmetric"] = json{{"group", "rotation"}, {"stride", 0},
                             {"program", rooted["programs"][0]}};
  rooted["symmetric"]["program"].erase("rank");
  rooted.erase("programs");
  expectPlanError([&] { planFromJson(rooted, "test.plan.json"); }, "symmetric",
                  "broadcast has a root, so its ranks' programs are not symmetric");

  json one = planToJson(ringAllReducePlan(1));
  one["symmetric"] = json{{"group", "rotation"}, {"stride", 0},
                          {"program", json{{"channels", one["programs"][0]["channels"]}}}};
  one.erase("programs");
  expectPlanError([&] { planFromJson(one, "test.plan.json"); }, "symmetric",
                  "a symmetric plan needs at least 2 ranks");
}

TEST(Symmetry, ASmallFileCannotAskForMoreOpsThanTheLimit) {
  const json doc = symmetricDocument(ringAllReducePlan(64));
  PlanLoadOptions small;
  small.maxProofUnits = 1000;  // 64 ranks x rank 0's 127 ops span more
  expectPlanError([&] { planFromJson(doc, "test.plan.json", small); }, "symmetric",
                  "instantiated for every one of its 64 ranks, rank 0's program would span more "
                  "than 1000 units");
  small.verify = false;
  expectPlanError([&] { planFromJson(doc, "test.plan.json", small); }, "symmetric",
                  "more than 4000 units (PlanLoadOptions::maxProofUnits x 4 without proof)");
  small.onlyRank = 5;  // one rank's program is always within reach
  EXPECT_EQ(planFromJson(doc, "test.plan.json", small).programs[5].numOps(), 127u);
}

TEST(Symmetry, AReferenceAcrossMessageWindowsIsRefused) {
  Plan plan = ringAllReducePlan(2);
  plan.scratchUnits = 4;  // two windows of the 2-unit message
  json doc = symmetricDocument(plan);
  doc["scratch_units"] = 4;
  doc["symmetric"]["program"]["channels"][0]["ops"][1]["dst"] = json::array({"tmp[1:3]"});
  expectPlanError([&] { planFromJson(doc, "test.plan.json"); },
                  "symmetric.program.channels[0].ops[1].dst[0]",
                  "tmp[1:3] crosses from one message window of 2 units into the next");
}

TEST(Symmetry, AnInstantiatedPlanIsProvenLikeAnyOther) {
  // The last reduction copies instead: every instantiation is valid and matched, but each
  // rank's own contribution never reaches the chunk it finishes.
  json doc = symmetricDocument(ringAllReducePlan(3));
  json &ops = doc["symmetric"]["program"]["channels"][0]["ops"];
  ops[2] = json{{"op", "recv_copy_send"}, {"recv", 2}, {"dst", {"out[1:2]"}}, {"send", {1}},
                {"step", 2}};
  expectPlanError([&] { planFromJson(doc, "test.plan.json"); }, "programs[0].channels[0].ops[3]",
                  "does not compute its allreduce: out[0] of rank 0 lacks the contribution of "
                  "in[0] of rank 2");
}
