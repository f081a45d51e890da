// The static deadlock check: cyclic recv-before-send programs are rejected, send-first rings accepted.
#include "PlanTestUtil.h"

#include "runtime/plan/Deadlock.h"

#include <algorithm>

using namespace collplan;
using namespace collplan::testing;

namespace {

/// Ring allreduce where every rank first waits for its left neighbour: a cycle of waits.
Plan recvBeforeSendRing(int n) {
  Plan plan = ringAllReducePlan(n);
  for (auto &program : plan.programs) std::swap(program.ops[0], program.ops[1]);
  return plan;
}

}  // namespace

TEST(PlanDeadlock, SendFirstRingIsDeadlockFree) {
  for (int n : {1, 2, 3, 5, 8, 64}) {
    DeadlockReport report = checkDeadlockFree(ringAllReducePlan(n));
    EXPECT_TRUE(report.deadlockFree()) << n << ": " << report.describe();
  }
}

TEST(PlanDeadlock, RecvBeforeSendRingIsRejected) {
  DeadlockReport report = checkDeadlockFree(recvBeforeSendRing(4));
  ASSERT_FALSE(report.deadlockFree());
  ASSERT_EQ(report.stuck.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(report.stuck[size_t(r)].rank, r);
    EXPECT_EQ(report.stuck[size_t(r)].opIndex, 0u);
    EXPECT_EQ(report.stuck[size_t(r)].waitingOn, (r + 3) % 4);
  }
  // 0 waits on 3 waits on 2 waits on 1 waits on 0.
  EXPECT_EQ(report.cycle, (std::vector<int>{0, 3, 2, 1}));
  const std::string text = report.describe();
  EXPECT_NE(text.find("4 of 4 ranks cannot finish"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 0 waits at ops[0] for transfer 3 from rank 3"), std::string::npos)
      << text;
  EXPECT_NE(text.find("cycle: 0 -> 3 -> 2 -> 1 -> 0"), std::string::npos) << text;
}

TEST(PlanDeadlock, LoaderRejectsADeadlockWithFieldAndReason) {
  expectPlanJsonError(recvBeforeSendRing(3), [](nlohmann::json &) {}, "programs[0].ops[0]",
                      "deadlock: 3 of 3 ranks cannot finish");
}

TEST(PlanDeadlock, PartialDeadlockNamesOnlyTheStuckRanks) {
  // 3 ranks: 0 and 1 each receive from the other before sending; rank 2 just sends to 0 and
  // 0 receives it last, so rank 2 finishes.
  Plan plan;
  plan.collective = CollectiveKind::Broadcast;
  plan.ranks = 3;
  plan.algorithm = "broken";
  plan.units = 1;
  plan.programs.resize(3);
  auto op = [](OpKind kind, std::optional<Endpoint> recv, std::vector<Endpoint> sends,
               std::vector<BufRef> srcs, std::vector<BufRef> dsts) {
    PlanOp o;
    o.kind = kind;
    o.recv = recv;
    o.sends = std::move(sends);
    o.srcs = std::move(srcs);
    o.dsts = std::move(dsts);
    return o;
  };
  plan.programs[0].ops = {op(OpKind::Recv, Endpoint{1, 1}, {}, {}, {out(0, 1)}),
                          op(OpKind::Send, {}, {{1, 0}}, {in(0, 1)}, {}),
                          op(OpKind::Recv, Endpoint{2, 2}, {}, {}, {out(0, 1)})};
  plan.programs[1].ops = {op(OpKind::Recv, Endpoint{0, 0}, {}, {}, {out(0, 1)}),
                          op(OpKind::Send, {}, {{0, 1}}, {out(0, 1)}, {})};
  plan.programs[2].ops = {op(OpKind::Send, {}, {{0, 2}}, {out(0, 1)}, {})};
  DeadlockReport report = checkDeadlockFree(plan);
  ASSERT_EQ(report.stuck.size(), 2u);
  EXPECT_EQ(report.stuck[0].rank, 0);
  EXPECT_EQ(report.stuck[1].rank, 1);
  EXPECT_EQ(report.cycle, (std::vector<int>{0, 1}));
  EXPECT_EQ(report.firstInCycle().rank, 0);
}

TEST(PlanDeadlock, FusedOpsWaitForTheirRecvBeforeSending) {
  // Two ranks each run recv_copy_send first: the sends inside the fused ops never happen.
  Plan plan = ringAllReducePlan(2);
  for (auto &program : plan.programs) program.ops.erase(program.ops.begin());
  DeadlockReport report = checkDeadlockFree(plan);
  EXPECT_EQ(report.stuck.size(), 2u);
}

TEST(PlanDeadlock, UnmatchedRecvHasNoCycle) {
  Plan plan = ringAllReducePlan(2);
  plan.programs[1].ops.back().recv->id = 999;  // never sent
  DeadlockReport report = checkDeadlockFree(plan);
  ASSERT_EQ(report.stuck.size(), 1u);
  EXPECT_TRUE(report.cycle.empty());
  EXPECT_NE(report.describe().find("no send ever executes"), std::string::npos);
}

TEST(PlanDeadlock, ManyStuckRanksAreSummarised) {
  DeadlockReport report = checkDeadlockFree(recvBeforeSendRing(32));
  EXPECT_EQ(report.stuck.size(), 32u);
  EXPECT_NE(report.describe().find("... and 24 more"), std::string::npos);
}
