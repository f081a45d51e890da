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
    EXPECT_NO_THROW(validatePlan(directAllReducePlan(n, ReduceOp::Max), "direct " + at));
    EXPECT_NO_THROW(validatePlan(ringAllGatherPlan(n), "ring allgather " + at));
    EXPECT_NO_THROW(validatePlan(ringReduceScatterPlan(n, ReduceOp::Prod), "ring rs " + at));
    EXPECT_NO_THROW(validatePlan(pairwiseAllToAllPlan(n), "pairwise " + at));
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
  for (const RankProgram &p : directAllReducePlan(6, ReduceOp::Sum).programs)
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
