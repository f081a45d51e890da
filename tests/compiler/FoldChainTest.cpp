// Reductions of several received operands compile to the chains the executors fuse into one
// pass (FusedChains.h): every message read once from the wire, not received into scratch first.
#include "compiler/lowering/Algorithms.h"
#include "tests/compiler/ScheduleTestSupport.h"
#include "runtime/plan/FusedChains.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace collplan;

namespace {

/// The plan of `algorithm` for `kind` on `ranks` ranks at one slice (root 0).
Plan compiled(CollectiveKind kind, int ranks, const char *algorithm) {
  const std::vector<Plan> plans =
      collplan::testing::compiledPlans({findAlgorithm(algorithm), kind}, ranks);
  return plans.empty() ? Plan{} : plans.front();
}

/// The longest fused chain among rank `rank`'s ops, and how many passes its ops run as.
struct Passes {
  uint32_t longestChain = 0;
  uint32_t receivingPasses = 0;  ///< ops that receive, a chain counted once
};

Passes passesOf(const Plan &plan, int rank) {
  Passes passes;
  const RankProgram &program = plan.programs.at(size_t(rank));
  const auto lengths = fusedChainLengths(program);
  for (size_t c = 0; c < program.channels.size(); ++c)
    for (size_t i = 0; i < program.channels[c].ops.size(); ++i) {
      passes.longestChain = std::max(passes.longestChain, lengths[c][i]);
      if (program.channels[c].ops[i].recv && lengths[c][i] > 0) ++passes.receivingPasses;
    }
  return passes;
}

TEST(FoldChain, OneShotRankZeroFoldsEveryPeerInOnePass) {
  for (int n = 3; n <= 16; ++n) {
    const Plan plan = compiled(CollectiveKind::AllReduce, n, "one-shot");
    // Rank 0's input comes first in the fold: its N-1 messages are one chain into out.
    EXPECT_EQ(passesOf(plan, 0).longestChain, uint32_t(n - 1)) << "N=" << n;
    EXPECT_EQ(passesOf(plan, 0).receivingPasses, 1u) << "N=" << n;
    // Elsewhere the fold runs in at most four passes: the first message alone (when the two
    // first operands both arrive), up to the rank's own input, after it, the last one home.
    for (int r = 1; r < n; ++r)
      EXPECT_LE(passesOf(plan, r).receivingPasses, 4u) << "N=" << n << " rank " << r;
    EXPECT_LE(plan.scratchUnits, uint32_t(1)) << "N=" << n;
    EXPECT_TRUE(plan.inplaceSafe) << "N=" << n;
  }
}

TEST(FoldChain, FlatReduceRootFoldsEveryMessageInOnePass) {
  for (int n : {3, 5, 8, 16}) {
    const Plan plan = compiled(CollectiveKind::Reduce, n, "flat");
    EXPECT_EQ(passesOf(plan, 0).longestChain, uint32_t(n - 1)) << "N=" << n;
    EXPECT_EQ(passesOf(plan, 0).receivingPasses, 1u) << "N=" << n;
  }
}

TEST(FoldChain, TwoOperandReductionsKeepTheirScratchReceive) {
  // Recursive halving receives a round's blocks into scratch so that coalescing joins them
  // into one message: no chain there, and the textbook message count stays.
  const Plan plan = compiled(CollectiveKind::ReduceScatter, 8, "recursive-halving");
  for (int r = 0; r < 8; ++r) {
    size_t sends = 0;
    for (const Channel &channel : plan.programs[size_t(r)].channels)
      for (const PlanOp &op : channel.ops) sends += op.sends.size();
    EXPECT_EQ(sends, 3u) << "rank " << r;
  }
}

}  // namespace
