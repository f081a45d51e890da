// Tests of the C++ cost API against the α-β closed forms.
#include "ScheduleTestSupport.h"

#include "compiler/analysis/CostModel.h"
#include "compiler/lowering/Algorithms.h"

#include <gtest/gtest.h>

using namespace collplan;
using collplan::testing::IRFixture;
using collplan::testing::ringAllreduceText;

namespace {

TEST(Cost, RingAllreduceMatchesClosedForm) {
  for (int n : {2, 3, 4, 5, 8, 12}) {
    IRFixture f;
    auto module = f.parse(ringAllreduceText(n));
    ASSERT_TRUE(module);
    ScheduleCost cost = analyzeCost(IRFixture::firstSchedule(*module));
    EXPECT_EQ(cost.alphaRounds, 2 * (n - 1)) << n;
    EXPECT_DOUBLE_EQ(cost.beta, 2.0 * (n - 1) / n) << n;
    EXPECT_EQ(cost.transfers, 2 * n * (n - 1)) << n;
    EXPECT_DOUBLE_EQ(cost.bytesMoved, 2.0 * (n - 1)) << n;
    // Unfused ring: per rank 5 touches per reduce-scatter step, 2 per allgather step.
    for (int r = 0; r < n; ++r) EXPECT_EQ(cost.touches(r), 7 * (n - 1)) << n << " rank " << r;
    EXPECT_DOUBLE_EQ(cost.unitFraction, 1.0 / n);
  }
}

TEST(Cost, AlphaBetaTime) {
  IRFixture f;
  auto module = f.parse(ringAllreduceText(4));
  ASSERT_TRUE(module);
  ScheduleCost cost = analyzeCost(IRFixture::firstSchedule(*module));
  // 6 rounds of 2 µs + 1.5 * 1 MB at 1000 B/µs.
  EXPECT_DOUBLE_EQ(cost.timeUs(2.0, 1000.0, 1e6), 6 * 2.0 + 1.5 * 1000.0);
}

TEST(Cost, AnalysisAndSummaryAgree) {
  IRFixture f;
  auto module = f.parse(ringAllreduceText(3));
  ASSERT_TRUE(module);
  CostAnalysis analysis(IRFixture::firstSchedule(*module).getOperation());
  EXPECT_EQ(analysis.cost().alphaRounds, 4);
  std::string text = formatCost(analysis.cost(), /*perRank=*/true);
  EXPECT_NE(text.find("alpha rounds:     4"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 2: reads"), std::string::npos) << text;
}

TEST(Cost, ReusedListSchedulesAreThoseOfTheScheduleAsked) {
  IRFixture f;
  auto ring = f.parse(ringAllreduceText(4));
  auto other = f.parse(ringAllreduceText(5));
  ASSERT_TRUE(ring && other);
  mlir::coll::ScheduleOp a = IRFixture::firstSchedule(*ring), b = IRFixture::firstSchedule(*other);
  const TransferRounds freshA = operandTransferRounds(a), freshB = operandTransferRounds(b);
  const ScheduleCost costA = analyzeCost(a);
  ASSERT_FALSE(freshA.empty());
  {
    SettledScheduleReuse reuse;
    EXPECT_EQ(analyzeCost(a).alphaRounds, costA.alphaRounds);
    EXPECT_EQ(operandTransferRounds(a), freshA);  // taken from the analyzeCost before it
    EXPECT_EQ(operandTransferRounds(a), freshA);  // computed again: the first call took it
    analyzeCost(a);
    EXPECT_EQ(operandTransferRounds(b), freshB);  // another schedule: never a's rounds
  }
  TransferRounds underReuse;
  {
    SettledScheduleReuse reuse;
    analyzeCost(a);
    assignSteps(a);  // new step attributes and op order: a's IR is no longer what was analysed
    underReuse = operandTransferRounds(a);
  }
  EXPECT_EQ(underReuse, operandTransferRounds(a));  // the changed IR's, as computed afresh
}

TEST(Cost, DupIsOneReadAndAWritePerDestination) {
  IRFixture f;
  auto module = f.parse(R"(
coll.schedule @dup broadcast ranks 3 root 0 {
  %x = coll.input rank 0 chunk 0
  %d:2 = coll.dup %x to ranks [1, 2]
  coll.output %x rank 0 chunk 0
  coll.output %d#0 rank 1 chunk 0
  coll.output %d#1 rank 2 chunk 0
}
)");
  ASSERT_TRUE(module);
  ScheduleCost cost = analyzeCost(IRFixture::firstSchedule(*module));
  EXPECT_EQ(cost.reads, (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(cost.writes, (std::vector<int64_t>{0, 1, 1}));
  // The root's single port still sends two messages: two rounds of M.
  EXPECT_EQ(cost.alphaRounds, 2);
  EXPECT_DOUBLE_EQ(cost.beta, 2.0);
}

TEST(Cost, PackedBlocksOfAStepTravelAsOneMessage) {
  // Bruck's all-to-all sends, in round k, the blocks whose distance to their destination has
  // bit k set: scattered chunks, packed by local copies. Each round is one message of those
  // blocks: ceil(log2 N) rounds, and per round the largest pack (N/2 blocks of M/N at powers
  // of two; at N = 5, packs of 2, 2 and 1 blocks).
  struct Expected {
    int n, rounds;
    double beta;
  };
  for (Expected e : {Expected{4, 2, 1.0}, Expected{5, 3, 1.0}, Expected{8, 3, 1.5},
                     Expected{16, 4, 2.0}}) {
    IRFixture f;
    auto module = f.parse("coll.collective @a2a alltoall ranks " + std::to_string(e.n) +
                          " algorithm \"bruck\"");
    ASSERT_TRUE(module);
    ASSERT_TRUE(mlir::succeeded(lowerCollectives(*module, LoweringRequest{})));
    ScheduleCost cost = analyzeCost(IRFixture::firstSchedule(*module));
    EXPECT_EQ(cost.alphaRounds, e.rounds) << e.n;
    EXPECT_DOUBLE_EQ(cost.beta, e.beta) << e.n;
  }
}

}  // namespace
