// Every built-in plan generator yields a valid, deadlock-free plan for N = 1..9 and every root.
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanValidate.h"

#include <gtest/gtest.h>

using namespace collplan;

namespace {

/// What needs the duplication feature: a dup, or one value to several dsts or several peers.
bool duplicates(const PlanOp &op) {
  return op.kind == OpKind::Dup || op.sends.size() > 1 || op.dsts.size() > 1;
}

TEST(ExecDefaultPlans, EveryGeneratorValidates) {
  for (int n = 1; n <= 9; ++n) {
    const std::string at = "N=" + std::to_string(n);
    EXPECT_NO_THROW(validatePlan(ringAllReducePlan(n, ReduceOp::Sum), "ring allreduce " + at));
    EXPECT_NO_THROW(validatePlan(twoShotAllReducePlan(n, ReduceOp::Max), "two-shot " + at));
    EXPECT_NO_THROW(validatePlan(ringAllGatherPlan(n), "ring allgather " + at));
    EXPECT_NO_THROW(validatePlan(ringReduceScatterPlan(n, ReduceOp::Prod), "ring rs " + at));
    EXPECT_NO_THROW(validatePlan(directAllToAllPlan(n), "direct " + at));
    EXPECT_NO_THROW(validatePlan(disseminationBarrierPlan(n), "barrier " + at));
    for (int root = 0; root < n; ++root) {
      const std::string r = at + " root=" + std::to_string(root);
      EXPECT_NO_THROW(validatePlan(flatBroadcastPlan(n, root), "flat bcast " + r));
      EXPECT_NO_THROW(validatePlan(binomialBroadcastPlan(n, root), "binomial bcast " + r));
      EXPECT_NO_THROW(validatePlan(binomialReducePlan(n, root, ReduceOp::Min), "reduce " + r));
      EXPECT_NO_THROW(validatePlan(flatGatherPlan(n, root), "gather " + r));
      EXPECT_NO_THROW(validatePlan(flatScatterPlan(n, root), "scatter " + r));
    }
  }
}

TEST(ExecDefaultPlans, RingAllReduceHasTheTextbookShape) {
  const Plan plan = ringAllReducePlan(4, ReduceOp::Sum);
  EXPECT_EQ(plan.units, 4u);
  EXPECT_TRUE(plan.inplaceSafe);
  EXPECT_DOUBLE_EQ(plan.predicted.alphaRounds, 6);
  EXPECT_DOUBLE_EQ(plan.predicted.beta, 1.5);
  for (const RankProgram &p : plan.programs) {
    ASSERT_EQ(p.channels.size(), 1u);
    const std::vector<PlanOp> &ops = p.channels[0].ops;
    ASSERT_EQ(ops.size(), 7u);  // send, 2 x recv_reduce_send, recv_reduce_send+dst, 2 x rcs, recv
    EXPECT_EQ(ops[0].kind, OpKind::Send);
    EXPECT_EQ(ops[1].kind, OpKind::RecvReduceSend);
    EXPECT_EQ(ops[3].kind, OpKind::RecvReduceSend);
    EXPECT_EQ(ops[3].dsts.size(), 1u);
    EXPECT_EQ(ops[4].kind, OpKind::RecvCopySend);
    EXPECT_EQ(ops[6].kind, OpKind::Recv);
  }
}

TEST(ExecDefaultPlans, NoBuiltInPlanNeedsDuplicatedWrites) {
  // So they run on every simulated topology, not only those with the duplication feature.
  for (int n = 2; n <= 9; ++n)
    for (int k = 0; k < kNumCollectiveKinds; ++k) {
      const CollectiveKind kind = CollectiveKind(k);
      std::optional<ReduceOp> op;
      if (needsReduceOp(kind)) op = ReduceOp::Sum;
      for (int root = 0; root < (needsRoot(kind) ? n : 1); ++root)
        for (const RankProgram &p : defaultPlan(kind, n, op, root).programs)
          for (const Channel &c : p.channels)
            for (const PlanOp &o : c.ops) EXPECT_FALSE(duplicates(o)) << toString(kind) << " N=" << n;
    }
  for (const RankProgram &p : twoShotAllReducePlan(6, ReduceOp::Sum).programs)
    for (const PlanOp &o : p.channels[0].ops) EXPECT_FALSE(duplicates(o));
  for (const RankProgram &p : flatBroadcastPlan(6, 2).programs)
    for (const PlanOp &o : p.channels[0].ops) EXPECT_FALSE(duplicates(o));
}

TEST(ExecDefaultPlans, DefaultPlanCoversEveryCollective) {
  for (int k = 0; k < kNumCollectiveKinds; ++k) {
    const CollectiveKind kind = CollectiveKind(k);
    std::optional<ReduceOp> op;
    if (needsReduceOp(kind)) op = ReduceOp::Sum;
    const Plan plan = defaultPlan(kind, 5, op, 2);
    EXPECT_EQ(plan.collective, kind);
    EXPECT_NO_THROW(validatePlan(plan, std::string(toString(kind))));
  }
  EXPECT_THROW(defaultPlan(CollectiveKind::AllReduce, 4, std::nullopt, 0), std::invalid_argument);
  EXPECT_THROW(defaultPlan(CollectiveKind::Broadcast, 4, std::nullopt, 4), std::invalid_argument);
  EXPECT_THROW(defaultPlan(CollectiveKind::AllGather, 0, std::nullopt, 0), std::invalid_argument);
}

/// Whether two programs have the same ops, field by field.
::testing::AssertionResult sameProgram(const RankProgram &a, const RankProgram &b) {
  if (a.channels.size() != b.channels.size())
    return ::testing::AssertionFailure() << a.channels.size() << " vs " << b.channels.size()
                                         << " channels";
  for (size_t c = 0; c < a.channels.size(); ++c) {
    const std::vector<PlanOp> &x = a.channels[c].ops, &y = b.channels[c].ops;
    if (x.size() != y.size())
      return ::testing::AssertionFailure() << "channel " << c << ": " << x.size() << " vs "
                                           << y.size() << " ops";
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].kind != y[i].kind || x[i].srcs != y[i].srcs || x[i].recv != y[i].recv ||
          x[i].recvPos != y[i].recvPos || x[i].dsts != y[i].dsts || x[i].sends != y[i].sends ||
          x[i].after != y[i].after || x[i].step != y[i].step)
        return ::testing::AssertionFailure() << "channel " << c << " op " << i << " differs";
  }
  return ::testing::AssertionSuccess();
}

// A rank's own build is exactly its program of the whole plan, and maxOps bounds the whole
// plan's ops within a factor of two.
TEST(ExecDefaultPlans, OneRankBuildsItsProgramOfTheWholePlan) {
  for (const BuiltInPlan &generator : builtInPlans())
    for (CollectiveKind kind : generator.kinds)
      for (int n = 1; n <= 9; ++n)
        for (int root = 0; root < (needsRoot(kind) ? n : 1); ++root) {
          const std::string at = std::string(generator.name) + " " +
                                 std::string(toString(kind)) + " N=" + std::to_string(n) +
                                 " root=" + std::to_string(root);
          const Plan whole = generator.make(kind, n, ReduceOp::Sum, root, -1);
          uint64_t ops = 0;
          for (const RankProgram &p : whole.programs) ops += p.numOps();
          EXPECT_LE(ops, generator.maxOps(kind, n)) << at;
          EXPECT_LE(generator.maxOps(kind, n), 2 * ops) << at;
          for (int rank = 0; rank < n; ++rank) {
            const Plan mine = generator.make(kind, n, ReduceOp::Sum, root, rank);
            EXPECT_EQ(mine.onlyRank, n == 1 ? -1 : rank) << at;
            ASSERT_EQ(mine.programs.size(), size_t(n)) << at;
            for (int r = 0; r < n; ++r)
              EXPECT_TRUE(sameProgram(mine.programs[size_t(r)],
                                      r == rank ? whole.programs[size_t(r)] : RankProgram{}))
                  << at << " rank " << rank << " program " << r;
            EXPECT_NO_THROW(validatePlan(mine, at + " rank " + std::to_string(rank))) << at;
          }
        }
  EXPECT_THROW(ringAllReducePlan(4, ReduceOp::Sum, 4), std::invalid_argument);
  EXPECT_THROW(disseminationBarrierPlan(4, -2), std::invalid_argument);
}

TEST(ExecDefaultPlans, InferOpKindFollowsTheShapeTable) {
  PlanOp op;
  op.srcs = {{BufferKind::In, 0, 1}};
  op.sends = {1};
  EXPECT_EQ(inferOpKind(op), OpKind::Send);
  op.dsts = {{BufferKind::Out, 0, 1}};
  EXPECT_EQ(inferOpKind(op), OpKind::Dup);
  op.sends.clear();
  EXPECT_EQ(inferOpKind(op), OpKind::Copy);
  op.srcs.push_back({BufferKind::Tmp, 0, 1});
  EXPECT_EQ(inferOpKind(op), OpKind::Reduce);
  op.recv = 1;
  EXPECT_EQ(inferOpKind(op), OpKind::RecvReduce);
  op.sends = {2};
  EXPECT_EQ(inferOpKind(op), OpKind::RecvReduceSend);
  op.srcs.clear();
  EXPECT_EQ(inferOpKind(op), OpKind::RecvCopySend);
  op.sends.clear();
  EXPECT_EQ(inferOpKind(op), OpKind::Recv);
}

}  // namespace
