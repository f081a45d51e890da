// coalesceTransfers: same-round transfers between two ranks become one message, and only when
// both ends hold the pieces next to each other and no wait or reader comes between.
#include "compiler/export/CoalesceTransfers.h"
#include "compiler/export/PlanCompiler.h"
#include "compiler/export/RankOps.h"
#include "tests/compiler/ScheduleTestSupport.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace collplan;

namespace {

/// A two-rank allgather with two units per block: each rank sends its two units as two
/// transfers of step 1. `rank1Middle` goes between rank 1's two receives of rank 0's units;
/// `secondStep` is the step of rank 0's second transfer.
std::string twoRankProgram(const std::string &rank1Middle, int secondStep = 1) {
  const std::string step2 = " {step = " + std::to_string(secondStep) + "}";
  return "coll.program @p allgather ranks 2 units 4 scratch 1 {\n"
         "  coll.rank 0 {\n"
         "    coll.local_copy in[0:1] -> out[0:1]\n"
         "    coll.local_copy in[1:2] -> out[1:2]\n"
         "    coll.send in[0:1] -> send 1 id 0 {step = 1}\n"
         "    coll.send in[1:2] -> send 1 id 1" + step2 + "\n"
         "    coll.recv recv 1 id 2 -> out[2:3] {step = 1}\n"
         "    coll.recv recv 1 id 3 -> out[3:4] {step = 1}\n"
         "  }\n"
         "  coll.rank 1 {\n"
         "    coll.local_copy in[0:1] -> out[2:3]\n"
         "    coll.local_copy in[1:2] -> out[3:4]\n"
         "    coll.send in[0:1] -> send 0 id 2 {step = 1}\n"
         "    coll.send in[1:2] -> send 0 id 3 {step = 1}\n"
         "    coll.recv recv 0 id 0 -> out[0:1] {step = 1}\n" +
         rank1Middle +
         "    coll.recv recv 0 id 1 -> out[1:2]" + step2 + "\n"
         "  }\n"
         "}\n";
}

struct Coalesced {
  unsigned merged = 0;
  unsigned localOps = 0;
  std::vector<std::vector<mlir::coll::Instruction>> ranks;
};

Coalesced coalesce(collplan::testing::IRFixture &ir, const std::string &text) {
  Coalesced result;
  auto module = ir.parse(text);
  if (!module) return result;
  auto program = *module->getOps<mlir::coll::ProgramOp>().begin();
  const CoalesceResult joined = coalesceTransfers(program);
  result.merged = joined.transfers;
  result.localOps = joined.localOps;
  for (auto rank : program.getBody().front().getOps<mlir::coll::RankOp>())
    result.ranks.push_back(readRankOps(rank));
  return result;
}

/// Transfers of each rank: (peer, units) of every send, in program order.
template <typename Op>
std::vector<std::pair<int, uint32_t>> sendsOf(const std::vector<Op> &ops) {
  std::vector<std::pair<int, uint32_t>> out;
  for (const Op &op : ops)
    for (int32_t peer : op.sends) out.push_back({peer, op.length()});
  return out;
}

TEST(CoalesceTransfers, AdjacentSameRoundPiecesBecomeOneMessage) {
  collplan::testing::IRFixture ir;
  const Coalesced c = coalesce(ir, twoRankProgram(""));
  EXPECT_EQ(c.merged, 2u);
  ASSERT_EQ(c.ranks.size(), 2u);
  using Sends = std::vector<std::pair<int, uint32_t>>;
  EXPECT_EQ(sendsOf(c.ranks[0]), (Sends{{1, 2u}}));
  EXPECT_EQ(sendsOf(c.ranks[1]), (Sends{{0, 2u}}));
  // Rank 1 receives both units with one instruction into out[0:2].
  int receives = 0;
  for (const mlir::coll::Instruction &op : c.ranks[1])
    if (op.recv) {
      ++receives;
      EXPECT_EQ(op.dsts.front(), (BufRef{BufferKind::Out, 0, 2}));
    }
  EXPECT_EQ(receives, 1);
}

TEST(CoalesceTransfers, TransfersOfDifferentRoundsStayApart) {
  collplan::testing::IRFixture ir;
  const Coalesced c = coalesce(ir, twoRankProgram("", /*secondStep=*/2));
  EXPECT_EQ(c.merged, 1u);  // only rank 1's two sends, both of step 1
  EXPECT_EQ(sendsOf(c.ranks[0]).size(), 2u);
}

TEST(CoalesceTransfers, ASendIsNeverDelayedPastAReceive) {
  collplan::testing::IRFixture ir;
  // Rank 0 forwards what it receives from rank 1 (so that send cannot move above the receive)
  // next to a send it makes before the receive: joining them would hold the first one back.
  const Coalesced c = coalesce(ir, "coll.program @p allgather ranks 2 units 4 scratch 0 {\n"
                                   "  coll.rank 0 {\n"
                                   "    coll.local_copy in[0:1] -> out[0:1]\n"
                                   "    coll.send out[0:1] -> send 1 id 0 {step = 1}\n"
                                   "    coll.recv recv 1 id 2 -> out[1:2] {step = 1}\n"
                                   "    coll.send out[1:2] -> send 1 id 1 {step = 1}\n"
                                   "  }\n"
                                   "  coll.rank 1 {\n"
                                   "    coll.send in[0:1] -> send 0 id 2 {step = 1}\n"
                                   "    coll.recv recv 0 id 0 -> out[0:1] {step = 1}\n"
                                   "    coll.recv recv 0 id 1 -> out[1:2] {step = 1}\n"
                                   "  }\n"
                                   "}\n");
  EXPECT_EQ(c.merged, 0u);
  ASSERT_EQ(c.ranks.size(), 2u);
  EXPECT_EQ(sendsOf(c.ranks[0]).size(), 2u);
}

TEST(CoalesceTransfers, AReceiverThatReadsTheLaterRangeFirstKeepsTwoReceives) {
  collplan::testing::IRFixture ir;
  const Coalesced c =
      coalesce(ir, twoRankProgram("    coll.local_copy out[1:2] -> tmp[0:1] {step = 1}\n"));
  EXPECT_EQ(sendsOf(c.ranks[0]).size(), 2u);
  EXPECT_EQ(sendsOf(c.ranks[1]).size(), 1u);  // rank 0's receives have nothing between them
}

TEST(CoalesceTransfers, ProgramsWithoutStepsAreLeftAlone) {
  collplan::testing::IRFixture ir;
  std::string text = twoRankProgram("");
  for (size_t at; (at = text.find(" {step = 1}")) != std::string::npos;) text.erase(at, 11);
  EXPECT_EQ(coalesce(ir, text).merged, 0u);
}

Plan compile(CollectiveKind kind, int ranks, const std::string &algorithm, int slices = 1) {
  const CollectiveSpec spec = collplan::testing::summingSpec(kind, ranks);
  CompileOptions options;
  options.algorithm = algorithm;
  options.slices = slices;
  std::string error;
  auto compiled = compileCollective(spec, options, error);
  EXPECT_TRUE(mlir::succeeded(compiled)) << error;
  return mlir::succeeded(compiled) ? compiled->plan : Plan{};
}

/// Recursive doubling's round k is one message of 2^(k-1) blocks per rank, as in MPI.
TEST(CoalesceTransfers, RecursiveDoublingAllGatherSendsOneGrowingMessagePerRound) {
  for (int ranks : {4, 8, 16}) {
    const Plan plan = compile(CollectiveKind::AllGather, ranks, "recursive-doubling");
    const uint32_t unitsPerBlock = plan.units / uint32_t(ranks);
    for (int rank = 0; rank < ranks; ++rank) {
      std::map<int, std::vector<uint32_t>> unitsByStep;
      for (const PlanOp &op : plan.programs[size_t(rank)].channels.at(0).ops)
        if (!op.sends.empty()) unitsByStep[op.step].push_back(op.length());
      ASSERT_EQ(unitsByStep.size(), size_t(__builtin_ctz(unsigned(ranks)))) << "rank " << rank;
      uint32_t expected = unitsPerBlock;
      for (const auto &[step, units] : unitsByStep) {
        EXPECT_EQ(units, std::vector<uint32_t>{expected}) << "N=" << ranks << " rank " << rank
                                                          << " step " << step;
        expected *= 2;
      }
    }
  }
}

/// A pipelined ring sends each slice in its own round: nothing is joined.
TEST(CoalesceTransfers, RingSlicesKeepTheirPipeline) {
  for (int ranks : {3, 4}) {
    const Plan plan = compile(CollectiveKind::AllGather, ranks, "ring", /*slices=*/2);
    for (const RankProgram &program : plan.programs) {
      size_t sends = 0;
      for (const PlanOp &op : program.channels.at(0).ops) {
        sends += op.sends.size();
        if (!op.sends.empty()) {
          EXPECT_EQ(op.length(), 1u);
        }
      }
      EXPECT_EQ(sends, size_t(2 * (ranks - 1)));
    }
  }
}

}  // namespace

/// One rank of a two-rank reduce-scatter program whose step-1 local instructions are `body`.
std::string localProgram(const std::string &body) {
  return "coll.program @p reduce_scatter ranks 2 op sum units 4 scratch 8 {\n"
         "  coll.rank 0 {\n" +
         body +
         "  }\n"
         "  coll.rank 1 {\n"
         "  }\n"
         "}\n";
}

TEST(CoalesceTransfers, AdjacentPerBlockReductionsBecomeOneInstruction) {
  collplan::testing::IRFixture ir;
  const Coalesced c = coalesce(ir, localProgram(
      "    coll.local_reduce in[0:1], tmp[0:1] -> tmp[4:5] {step = 1}\n"
      "    coll.local_reduce in[1:2], tmp[1:2] -> tmp[5:6] {step = 1}\n"
      "    coll.local_reduce in[2:3], tmp[2:3] -> tmp[6:7] {step = 1}\n"
      "    coll.local_reduce in[3:4], tmp[3:4] -> tmp[7:8] {step = 2}\n"));
  EXPECT_EQ(c.localOps, 2u);
  ASSERT_EQ(c.ranks.size(), 2u);
  ASSERT_EQ(c.ranks[0].size(), 2u);  // the step-2 reduction stays apart
  const mlir::coll::Instruction &run = c.ranks[0].front();
  EXPECT_EQ(run.srcs, (std::vector<BufRef>{{BufferKind::In, 0, 3}, {BufferKind::Tmp, 0, 3}}));
  EXPECT_EQ(run.dsts, (std::vector<BufRef>{{BufferKind::Tmp, 4, 3}}));
}

TEST(CoalesceTransfers, AReductionThatReadsThePreviousResultStaysApart) {
  collplan::testing::IRFixture ir;
  // The second reduction reads tmp[4:5], which the first writes: one instruction would read
  // it before it is written.
  const Coalesced c = coalesce(ir, localProgram(
      "    coll.local_reduce in[0:1], tmp[3:4] -> tmp[4:5] {step = 1}\n"
      "    coll.local_reduce in[1:2], tmp[4:5] -> tmp[5:6] {step = 1}\n"));
  EXPECT_EQ(c.localOps, 0u);
  ASSERT_EQ(c.ranks.size(), 2u);
  EXPECT_EQ(c.ranks[0].size(), 2u);
}

TEST(CoalesceTransfers, ReductionsWhoseOperandsAreNotContiguousStayApart) {
  collplan::testing::IRFixture ir;
  const Coalesced c = coalesce(ir, localProgram(
      "    coll.local_reduce in[0:1], tmp[0:1] -> tmp[4:5] {step = 1}\n"
      "    coll.local_reduce in[1:2], tmp[2:3] -> tmp[5:6] {step = 1}\n"));
  EXPECT_EQ(c.localOps, 0u);
}
