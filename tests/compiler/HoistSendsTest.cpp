// hoistSends in compiled plans: sends come before the receives they do not depend on, never
// before one that writes what they send (separate or in-place layout).
#include "compiler/export/PlanCompiler.h"

#include <gtest/gtest.h>

using namespace collplan;

namespace {

Plan compileRing(CollectiveKind kind, int ranks, uint32_t slices = 1) {
  CollectiveSpec spec;
  spec.kind = kind;
  spec.ranks = ranks;
  if (needsReduceOp(kind)) spec.op = ReduceOp::Sum;
  CompileOptions options;
  options.algorithm = "ring";
  options.slices = slices;
  std::string error;
  auto compiled = compileCollective(spec, options, error);
  EXPECT_TRUE(mlir::succeeded(compiled)) << error;
  return mlir::succeeded(compiled) ? compiled->plan : Plan{};
}

std::string kinds(const RankProgram &program) {
  std::string s;
  for (const PlanOp &op : program.ops)
    s += std::string(s.empty() ? "" : " ") + (!op.sends.empty() && op.dsts.empty() && !op.recv
                                                  ? "send"
                                              : op.recv ? "recv"
                                                        : "local");
  return s;
}

/// Before the hoist, the odd rank of a two-rank ring allgather received before it sent: the
/// two copies of the call ran one after the other instead of side by side.
TEST(HoistSends, TwoRankRingAllGatherSendsFirstOnBothRanks) {
  const Plan plan = compileRing(CollectiveKind::AllGather, 2);
  ASSERT_EQ(plan.programs.size(), 2u);
  EXPECT_EQ(kinds(plan.programs[0]), "local send recv");
  EXPECT_EQ(kinds(plan.programs[1]), "local send recv");
}

/// No send-only op is left right after a receive that sends nothing and does not write what the
/// send reads (separate or in place); a ring's forwarding sends stay after their receives.
TEST(HoistSends, NoSendLeftBehindAnIndependentReceive) {
  for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::AllReduce,
                              CollectiveKind::ReduceScatter})
    for (int ranks : {2, 3, 5})
      for (uint32_t slices : {1u, 2u}) {
        const Plan plan = compileRing(kind, ranks, slices);
        const int blocks = messageBlocks(kind, ranks);
        const int64_t unitsPerBlock = blocks > 0 ? int64_t(plan.units) / blocks : 0;
        for (int rank = 0; rank < plan.ranks; ++rank) {
          const RankProgram &program = plan.programs[size_t(rank)];
          const int64_t inShift = inPlaceBlockShift(kind, 0, rank) * unitsPerBlock;
          for (size_t i = 1; i < program.ops.size(); ++i) {
            const PlanOp &op = program.ops[i], &prev = program.ops[i - 1];
            if (op.sends.empty() || op.recv || !op.dsts.empty()) continue;
            if (!prev.recv || !prev.sends.empty()) continue;
            bool dependent = false;
            for (const BufRef &d : prev.dsts)
              for (const BufRef &src : op.srcs) dependent |= rangesOverlap(d, src, inShift, true);
            EXPECT_TRUE(dependent) << toString(kind) << " N=" << ranks << " slices " << slices
                                   << " rank " << rank << " op " << i
                                   << ": an independent send left after a receive";
          }
        }
      }
}

}  // namespace
