// verifyPlan: every built-in plan proves clean, and each class of broken plan gets its own
// diagnostic naming the op, the unit and the reason.
#include "PlanTestUtil.h"
#include "runtime/core/Collective.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/PlanVerify.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace collplan {
namespace {

using testing::in;
using testing::makeOp;
using testing::out;
using testing::tmp;
using testing::allGatherPlan2;

/// Asserts that `plan` is structurally valid (so only the proof can catch it) and that its first
/// problem is at `path` and says `reason`.
void expectProblem(const Plan &plan, const std::string &path, const std::string &reason) {
  ASSERT_NO_THROW(validatePlan(plan, "test"));
  const VerifyResult result = verifyPlan(plan);
  ASSERT_FALSE(result.ok()) << "expected: " << path << ": " << reason;
  EXPECT_EQ(result.problems.front().path, path) << result.describe();
  EXPECT_NE(result.problems.front().message.find(reason), std::string::npos) << result.describe();
}

PlanOp &opAt(Plan &plan, int rank, uint32_t channel, size_t op) {
  return plan.programs[size_t(rank)].channels[channel].ops[op];
}

TEST(PlanVerify, EveryBuiltInPlanProvesCleanForEveryRankCountAndRoot) {
  int checked = 0;
  for (const BuiltInPlan &generator : builtInPlans())
    for (CollectiveKind kind : generator.kinds)
      for (int ranks = 1; ranks <= 64; ++ranks) {
        const int roots = needsRoot(kind) ? ranks : 1;
        for (int root = 0; root < roots; ++root) {
          const Plan plan = generator.make(kind, ranks, ReduceOp::Sum, root, -1);
          const VerifyResult result = verifyPlan(plan);
          EXPECT_TRUE(result.ok()) << generator.name << " " << toString(kind) << " N=" << ranks
                                   << " root " << root << ": " << result.describe();
          ++checked;
        }
      }
  EXPECT_GT(checked, 10000);
}

// A receive writes another unit of `out`: rank 0 receives rank 1's block into out[2].
TEST(PlanVerify, ReceiveIntoTheWrongOutputUnit) {
  Plan plan = ringAllGatherPlan(3);
  Plan reference = plan;
  for (PlanOp &op : plan.programs[0].channels[0].ops)
    if (op.recv && op.dsts.size() == 1 && op.dsts[0].offset == 1) op.dsts[0] = out(2, 3);
  ASSERT_FALSE(verifyPlan(plan).ok());
  const VerifyResult result = verifyPlan(plan);
  EXPECT_NE(result.describe().find("out[1] of rank 0 is never written"), std::string::npos)
      << result.describe();
  EXPECT_TRUE(verifyPlan(reference).ok());
}

// A forwarding receive stores the block it forwards over the rank's own block.
TEST(PlanVerify, ForwardingReceiveWritesTheWrongUnit) {
  Plan plan = ringAllGatherPlan(3);
  for (PlanOp &op : plan.programs[1].channels[0].ops)
    if (op.recv && !op.sends.empty()) op.dsts = {out(1, 2)};
  const VerifyResult result = verifyPlan(plan);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.describe().find("out[1] of rank 1 holds in[0] of rank 0 instead of in[0] of "
                                   "rank 1"),
            std::string::npos)
      << result.describe();
}

// A send reads scratch that nothing wrote.
TEST(PlanVerify, SendReadsUninitialisedScratch) {
  Plan plan = ringAllGatherPlan(3);
  plan.scratchUnits = 1;
  PlanOp &send = opAt(plan, 0, 0, 0);
  ASSERT_EQ(send.kind, OpKind::Send);
  send.srcs = {tmp(0, 1)};
  expectProblem(plan, "programs[0].channels[0].ops[0]",
                "reads tmp[0] of rank 0 before anything wrote it");
}

// A reduction takes the wrong chunk of its own input.
TEST(PlanVerify, ReductionOfTheWrongChunk) {
  Plan plan = ringAllReducePlan(3, ReduceOp::Sum);
  for (PlanOp &op : plan.programs[1].channels[0].ops)
    if (op.kind == OpKind::RecvReduceSend) {
      op.srcs[0].offset = (op.srcs[0].offset + 1) % 3;
      break;
    }
  const VerifyResult result = verifyPlan(plan);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.describe().find("which does not belong there"), std::string::npos)
      << result.describe();
}

// A contribution counted twice: rank 0 adds its own input to what it forwards twice.
TEST(PlanVerify, ContributionCountedTwice) {
  Plan plan = ringAllReducePlan(3, ReduceOp::Sum);
  for (PlanOp &op : plan.programs[1].channels[0].ops)
    if (op.kind == OpKind::RecvReduceSend) {
      op.srcs.push_back(op.srcs[0]);
      break;
    }
  const VerifyResult result = verifyPlan(plan);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.describe().find("counts the contribution of in["), std::string::npos)
      << result.describe();
  EXPECT_NE(result.describe().find("of rank 1 2 times"), std::string::npos) << result.describe();
}

// A contribution missing: a reduce-scatter rank forwards what it received without its own.
TEST(PlanVerify, ContributionMissing) {
  Plan plan = ringReduceScatterPlan(3, ReduceOp::Sum);
  for (PlanOp &op : plan.programs[2].channels[0].ops)
    if (op.kind == OpKind::RecvReduceSend) {
      op.kind = OpKind::RecvCopySend;
      op.srcs.clear();
      op.recvPos = 0;
      break;
    }
  const VerifyResult result = verifyPlan(plan);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.describe().find("lacks the contribution of in["), std::string::npos)
      << result.describe();
  EXPECT_NE(result.describe().find("] of rank 2"), std::string::npos) << result.describe();
}

// An output unit nobody writes: the final copy of a ring allreduce block is dropped.
TEST(PlanVerify, MissingOutputUnit) {
  Plan plan = ringAllReducePlan(3, ReduceOp::Sum);
  std::vector<PlanOp> &ops = plan.programs[0].channels[0].ops;
  ASSERT_TRUE(ops.back().recv.has_value());
  ASSERT_TRUE(ops.back().sends.empty());
  const uint32_t unit = ops.back().dsts[0].offset;
  ops.back().dsts.clear();
  ops.back().kind = inferOpKind(ops.back());
  const VerifyResult result = verifyPlan(plan);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.problems.front().path, "programs[0]");
  EXPECT_NE(result.problems.front().message.find("out[" + std::to_string(unit) +
                                                 "] of rank 0 is never written"),
            std::string::npos)
      << result.describe();
}

// Two ranks fold the same contributions in different orders: not bitwise identical.
TEST(PlanVerify, RanksFoldInDifferentOrders) {
  Plan plan;
  plan.collective = CollectiveKind::AllReduce;
  plan.ranks = 2;
  plan.op = ReduceOp::Sum;
  plan.algorithm = "exchange";
  plan.units = 1;
  plan.programs.resize(2);
  for (int r = 0; r < 2; ++r) {
    PlanOp send;
    send.kind = OpKind::Send;
    send.srcs = {in(0, 1)};
    send.sends = {1 - r};
    PlanOp reduce;
    reduce.kind = OpKind::RecvReduce;
    reduce.srcs = {in(0, 1)};
    reduce.recv = 1 - r;
    reduce.recvPos = 1;  // own input first on both ranks: in0 + in1 on rank 0, in1 + in0 on 1
    reduce.dsts = {out(0, 1)};
    plan.programs[size_t(r)].channel(0) = {send, reduce};
  }
  expectProblem(plan, "programs[1].channels[0].ops[1]", "is reduced in another order than on rank 0");
  plan.programs[1].channels[0].ops[1].recvPos = 0;  // rank 1 folds in0 + in1 too
  EXPECT_TRUE(verifyPlan(plan).ok()) << verifyPlan(plan).describe();
}

// A barrier missing its last round lets ranks out before every rank has arrived.
TEST(PlanVerify, BarrierLetsARankOutEarly) {
  Plan plan = disseminationBarrierPlan(4);
  for (RankProgram &program : plan.programs) {
    std::vector<PlanOp> &ops = program.channels[0].ops;
    ops.resize(2);  // one round: send to r+1, receive from r-1
  }
  expectProblem(plan, "programs[0]", "rank 0 may leave the barrier before rank 1 arrives");
}

// A broadcast root that sends its input but never writes its own output.
TEST(PlanVerify, BroadcastRootNeverWritesItsOutput) {
  Plan plan = flatBroadcastPlan(3, 1);
  std::vector<PlanOp> &ops = plan.programs[1].channels[0].ops;
  const size_t before = ops.size();
  ops.erase(std::remove_if(ops.begin(), ops.end(),
                           [](const PlanOp &op) { return op.kind == OpKind::Copy; }),
            ops.end());
  ASSERT_EQ(ops.size() + 1, before);
  expectProblem(plan, "programs[1]",
                "out[0] of rank 1 is never written (it should hold in[0] of rank 1)");
}

// A scatter sends rank 1 the block meant for rank 2.
TEST(PlanVerify, ScatterSendsTheWrongBlock) {
  Plan plan = flatScatterPlan(3, 0);
  for (PlanOp &op : plan.programs[0].channels[0].ops)
    if (!op.sends.empty() && op.sends[0] == 1) op.srcs = {in(2, 3)};
  const VerifyResult result = verifyPlan(plan);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.describe().find("out[0] of rank 1 holds in[2] of rank 0 instead of in[1] of "
                                   "rank 0"),
            std::string::npos)
      << result.describe();
}

// A gather's root keeps a block from the wrong rank (it copies its own block twice).
TEST(PlanVerify, GatherHoldsTheWrongRanksBlock) {
  Plan plan = flatGatherPlan(3, 0);
  std::vector<PlanOp> &ops = plan.programs[0].channels[0].ops;
  for (PlanOp &op : ops)
    if (op.recv && op.dsts[0].offset == 2) op.dsts = {out(1, 2)};
  PlanOp copy;
  copy.kind = OpKind::Copy;
  copy.srcs = {in(0, 1)};
  copy.dsts = {out(2, 3)};
  ops.push_back(copy);
  const VerifyResult result = verifyPlan(plan);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.describe().find("of rank 0 holds in[0] of rank"), std::string::npos)
      << result.describe();
}

// All-to-all: a rank sends a peer its own block instead of the peer's.
TEST(PlanVerify, AllToAllSendsTheWrongBlock) {
  Plan plan = directAllToAllPlan(3);
  for (PlanOp &op : plan.programs[0].channels[0].ops)
    if (!op.sends.empty() && op.sends[0] == 1) op.srcs = {in(0, 1)};
  const VerifyResult result = verifyPlan(plan);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.describe().find("out[0] of rank 1 holds in[0] of rank 0 instead of in[1] of "
                                   "rank 0"),
            std::string::npos)
      << result.describe();
}

/// A 2-rank allgather whose rank 0 copies its own block on channel 1 and receives its peer's
/// block on channel 0; `writeUnit` is the unit the channel-1 copy writes.
Plan twoChannelAllGather(uint32_t writeUnit) {
  Plan plan = allGatherPlan2();
  PlanOp copy;
  copy.kind = OpKind::Copy;
  copy.srcs = {in(0, 1)};
  copy.dsts = {out(writeUnit, writeUnit + 1)};
  plan.programs[0].channel(1).push_back(copy);
  return plan;
}

// Two channels of a rank write one unit with nothing ordering them.
TEST(PlanVerify, TwoChannelsWriteOneUnit) {
  Plan plan = twoChannelAllGather(0);
  expectProblem(plan, "programs[0].channels[0].ops[0]",
                "writes out[0] of rank 0 while channels[1].ops[0] may write it at the same time");
  plan.programs[0].channels[1].ops[0].after = {OpRef{0, 0}};  // ordered: the same value twice
  EXPECT_TRUE(verifyPlan(plan).ok()) << verifyPlan(plan).describe();
}

// A channel reads a unit another channel writes, without an ordering dependency.
TEST(PlanVerify, ReadAfterWriteAcrossChannelsWithoutAfter) {
  Plan plan = allGatherPlan2();
  plan.scratchUnits = 1;
  PlanOp &dup = opAt(plan, 0, 0, 0);  // rank 0 keeps its block in scratch, sends it on
  ASSERT_EQ(dup.kind, OpKind::Dup);
  dup.dsts = {tmp(0, 1)};
  PlanOp fromScratch;
  fromScratch.kind = OpKind::Copy;
  fromScratch.srcs = {tmp(0, 1)};
  fromScratch.dsts = {out(0, 1)};
  plan.programs[0].channel(1).push_back(fromScratch);
  expectProblem(plan, "programs[0].channels[0].ops[0]",
                "writes tmp[0] of rank 0 while channels[1].ops[0] may read it at the same time");
  plan.programs[0].channels[1].ops[0].after = {OpRef{0, 0}};
  EXPECT_TRUE(verifyPlan(plan).ok()) << verifyPlan(plan).describe();
}

// Loading runs the proof: the error names the origin, the op and the unit; a load for one
// rank, or one that asks for structure only, does not.
TEST(PlanVerify, LoadingProvesThePlan) {
  Plan plan = ringAllGatherPlan(3);
  for (PlanOp &op : plan.programs[1].channels[0].ops)
    if (op.recv && !op.sends.empty()) op.dsts = {out(1, 2)};
  const nlohmann::json doc = planToJson(plan);
  testing::expectPlanError([&] { planFromJson(doc, "edited.plan.json"); }, "programs[1]",
                           "does not compute its allgather: out[0] of rank 1 is never written");
  EXPECT_NO_THROW(planFromJson(doc, "edited.plan.json", testing::structureOnly()));
  PlanLoadOptions one;
  one.onlyRank = 1;
  EXPECT_NO_THROW(planFromJson(doc, "edited.plan.json", one));
}

// A reduction reads its output buffer before anything wrote it.
TEST(PlanVerify, ReductionReadsUnwrittenOutput) {
  Plan plan = binomialReducePlan(4, 0, ReduceOp::Sum);
  PlanOp &first = opAt(plan, 0, 0, 0);
  ASSERT_EQ(first.kind, OpKind::RecvReduce);
  first.srcs = {out(0, 1)};
  expectProblem(plan, "programs[0].channels[0].ops[0]",
                "reads out[0] of rank 0 before anything wrote it");
}

// A reduce whose inner tree node forwards its child's partial without its own input.
TEST(PlanVerify, ReduceSubtreeDropsAContribution) {
  Plan plan = binomialReducePlan(4, 0, ReduceOp::Sum);
  // Rank 2 sends its input alone, dropping rank 3's contribution from its subtree.
  PlanOp &middle = opAt(plan, 2, 0, 0);
  ASSERT_EQ(middle.kind, OpKind::RecvReduceSend);
  middle.srcs = {};
  middle.recvPos = 0;
  middle.kind = OpKind::RecvCopySend;
  expectProblem(plan, "programs[0].channels[0].ops[1]",
                "out[0] of rank 0 lacks the contribution of in[0] of rank 2");
}

/// Allgather over `ranks` ranks, every rank sending its block to every other directly, in
/// `slices` messages per block (units = ranks × slices).
Plan directAllGather(int ranks, uint32_t slices) {
  Plan plan;
  plan.collective = CollectiveKind::AllGather;
  plan.ranks = ranks;
  plan.algorithm = "two-shot";
  plan.units = uint32_t(ranks) * slices;
  plan.programs.resize(size_t(ranks));
  for (int r = 0; r < ranks; ++r) {
    auto &ops = plan.programs[size_t(r)].channel(0);
    const uint32_t own = uint32_t(r) * slices;
    ops.push_back(makeOp(OpKind::Copy, {in(0, slices)}, {}, {out(own, own + slices)}, {}));
    for (int p = 0; p < ranks; ++p)
      for (uint32_t k = 0; k < slices && p != r; ++k)
        ops.push_back(makeOp(OpKind::Send, {in(k, k + 1)}, {}, {}, {p}));
    for (int p = 0; p < ranks; ++p)
      for (uint32_t k = 0; k < slices && p != r; ++k) {
        const uint32_t at = uint32_t(p) * slices + k;
        ops.push_back(makeOp(OpKind::Recv, {}, p, {out(at, at + 1)}, {}));
      }
  }
  return plan;
}

// Two blocks land in each other's place (slices of different phases are refused earlier, by
// the structure check).
TEST(PlanVerify, SwappedBlocks) {
  Plan plan = directAllGather(3, 1);
  ASSERT_TRUE(verifyPlan(plan).ok()) << verifyPlan(plan).describe();
  std::swap(opAt(plan, 0, 0, 3).dsts, opAt(plan, 0, 0, 4).dsts);  // rank 0's recvs from 1, 2
  expectProblem(plan, "programs[0].channels[0].ops[4]",
                "out[1] of rank 0 holds in[0] of rank 2 instead of in[0] of rank 1");
}

// A rank sends to the wrong peer, and the receivers were edited to match: rank 0 sends its
// block to rank 2 twice and never to rank 1.
TEST(PlanVerify, WrongPeer) {
  Plan plan = directAllGather(3, 1);
  opAt(plan, 0, 0, 1).sends = {2};  // was rank 1
  auto &rank1 = plan.programs[1].channels[0].ops;
  rank1.erase(rank1.begin() + 3);   // its recv from rank 0
  auto &rank2 = plan.programs[2].channels[0].ops;
  rank2.insert(rank2.begin() + 3, rank2[3]);  // a second recv from rank 0 into out[0]
  expectProblem(plan, "programs[1]", "out[0] of rank 1 is never written (it should hold in[0] "
                                     "of rank 0)");
}

// A rooted collective writes the output of a rank that has none (reduce at root 0: rank 1 has
// no out buffer): the structure check refuses it before any proof.
TEST(PlanVerify, RootedCollectiveWritesANonRootsOutput) {
  Plan plan = binomialReducePlan(2, 0, ReduceOp::Sum);
  plan.programs[1].channel(0).push_back(makeOp(OpKind::Copy, {in(0, 1)}, {}, {out(0, 1)}, {}));
  testing::expectPlanError([&] { validatePlan(plan, "test"); },
                           "programs[1].channels[0].ops[1].dst[0]",
                           "out[0:1] is out of range: rank 1's out buffer holds 0 units");
}

// A plan marked inplace_safe that reads its input after writing the output unit it shares in an
// in-place call: right with separate buffers, wrong in place.
TEST(PlanVerify, InPlaceSafePlanReadsOverwrittenInput) {
  Plan plan = ringAllReducePlan(2, ReduceOp::Sum);
  ASSERT_TRUE(plan.inplaceSafe);
  // Rank 0 first parks in[0] + in[0] in out[0] (overwritten later by the final recv), then
  // sends in[0].
  auto &ops = plan.programs[0].channels[0].ops;
  ops.insert(ops.begin(), makeOp(OpKind::Reduce, {in(0, 1), in(0, 1)}, {}, {out(0, 1)}, {}));
  expectProblem(plan, "programs[0].channels[0].ops[1]",
                "in an in-place call (the plan is marked inplace_safe, so in and out are one "
                "buffer): reads in[0] of rank 0 after programs[0].channels[0].ops[0] overwrote "
                "it through out[0]");
  plan.inplaceSafe = false;  // the executor stages the input of such a plan
  EXPECT_TRUE(verifyPlan(plan).ok()) << verifyPlan(plan).describe();
}

// In an in-place call one channel overwrites the output unit another reads as input, unordered.
TEST(PlanVerify, InPlaceSafePlanRacesOnSharedUnitAcrossChannels) {
  Plan plan = ringAllReducePlan(2, ReduceOp::Sum);
  // Rank 0 parks in[0] + in[0] in out[0] on a second channel, before its final recv (ordered by
  // `after`) but unordered with channel 0's send of in[0].
  plan.programs[0].channel(1).push_back(
      makeOp(OpKind::Reduce, {in(0, 1), in(0, 1)}, {}, {out(0, 1)}, {}));
  PlanOp &finalRecv = opAt(plan, 0, 0, 2);
  ASSERT_EQ(finalRecv.dsts, std::vector<BufRef>{out(0, 1)});
  finalRecv.after = {OpRef{1, 0}};
  expectProblem(plan, "programs[0].channels[0].ops[0]",
                "in an in-place call (the plan is marked inplace_safe, so in and out are one "
                "buffer): reads in[0] of rank 0 while channels[1].ops[0] may overwrite it (no "
                "`after` orders them) through out[0]");
  plan.inplaceSafe = false;
  EXPECT_TRUE(verifyPlan(plan).ok()) << verifyPlan(plan).describe();
}

TEST(PlanVerify, DescribeListsAtMostTheLimit) {
  VerifyResult result;
  for (int k = 0; k < 5; ++k) result.problems.push_back({"p" + std::to_string(k), "why"});
  EXPECT_EQ(result.describe(2), "p0: why; p1: why; and 3 more");
}

}  // namespace
}  // namespace collplan
