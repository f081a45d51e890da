// The static deadlock check under the execution model: cyclic waits on messages, on room in a
// FIFO and on other channels are rejected; send-first rings and bounded streams are accepted.
#include "PlanTestUtil.h"

#include "runtime/plan/Deadlock.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/Symmetry.h"

#include <algorithm>

using namespace collplan;
using namespace collplan::testing;

namespace {

/// Ring allgather where every rank first waits for its left neighbour's first message before
/// sending its own block: a cycle of waits. (All units have one phase, so the reordered
/// messages still match.)
Plan recvBeforeSendRing(int n) {
  Plan plan = ringAllGatherPlan(n);
  for (auto &program : plan.programs) {
    // send own, copy own, forward..., receive last -> copy own, forward, send own, ...
    auto &ops = program.channels[0].ops;
    std::rotate(ops.begin(), ops.begin() + 1, ops.begin() + 3);
  }
  return plan;
}

/// Two ranks that each send `messages` messages to the other before receiving any.
Plan exchangeAllFirst(int messages) {
  Plan plan;
  plan.collective = CollectiveKind::AllToAll;
  plan.ranks = 2;
  plan.algorithm = "burst";
  plan.units = 2 * uint32_t(messages);
  plan.programs.resize(2);
  const uint32_t per = uint32_t(messages);  // units per block
  for (int r = 0; r < 2; ++r) {
    const int peer = 1 - r;
    auto &ops = plan.programs[size_t(r)].channel(0);
    for (uint32_t k = 0; k < per; ++k)
      ops.push_back(
          makeOp(OpKind::Send, {in(peer * per + k, peer * per + k + 1)}, std::nullopt, {}, {peer}));
    for (uint32_t k = 0; k < per; ++k)
      ops.push_back(makeOp(OpKind::Recv, {}, peer, {out(peer * per + k, peer * per + k + 1)}, {}));
  }
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
    EXPECT_EQ(report.stuck[size_t(r)].op, 1u);
    EXPECT_EQ(report.stuck[size_t(r)].waits, WaitKind::Message);
    EXPECT_EQ(report.stuck[size_t(r)].peer, (r + 3) % 4);
  }
  // 0 waits on 3 waits on 2 waits on 1 waits on 0.
  EXPECT_EQ(report.cycle, (std::vector<size_t>{0, 3, 2, 1}));
  const std::string text = report.describe();
  EXPECT_NE(text.find("4 of 4 ranks cannot finish"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 0 waits at channels[0].ops[1] for a message from rank 3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cycle: rank 0 -> rank 3 -> rank 2 -> rank 1 -> rank 0"),
            std::string::npos)
      << text;
}

TEST(PlanDeadlock, LoaderRejectsADeadlockWithFieldAndReason) {
  expectPlanJsonError(recvBeforeSendRing(3), [](nlohmann::json &) {},
                      "programs[0].channels[0].ops[1]", "deadlock: 3 of 3 ranks cannot finish");
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
  plan.programs[0].channel(0) = {makeOp(OpKind::Recv, {}, 1, {out(0, 1)}, {}),
                                 makeOp(OpKind::Send, {in(0, 1)}, std::nullopt, {}, {1}),
                                 makeOp(OpKind::Recv, {}, 2, {out(0, 1)}, {})};
  plan.programs[1].channel(0) = {makeOp(OpKind::Recv, {}, 0, {out(0, 1)}, {}),
                                 makeOp(OpKind::Send, {out(0, 1)}, std::nullopt, {}, {0})};
  plan.programs[2].channel(0) = {makeOp(OpKind::Send, {out(0, 1)}, std::nullopt, {}, {0})};
  DeadlockReport report = checkDeadlockFree(plan);
  ASSERT_EQ(report.stuck.size(), 2u);
  EXPECT_EQ(report.stuck[0].rank, 0);
  EXPECT_EQ(report.stuck[1].rank, 1);
  EXPECT_EQ(report.cycle, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(report.first().rank, 0);
}

TEST(PlanDeadlock, FusedOpsWaitForTheirRecvBeforeSending) {
  // Two ranks each run recv_copy_send first: the sends inside the fused ops never happen.
  Plan plan = ringAllReducePlan(2);
  for (auto &program : plan.programs)
    program.channels[0].ops.erase(program.channels[0].ops.begin());
  DeadlockReport report = checkDeadlockFree(plan);
  EXPECT_EQ(report.stuck.size(), 2u);
}

TEST(PlanDeadlock, AMessageNeverSentHasNoCycle) {
  Plan plan = ringAllReducePlan(2);
  plan.programs[0].channels[0].ops.pop_back();  // rank 0 stops before its last recv...
  plan.programs[0].channels[0].ops.back().sends.clear();  // ...and never sends the last message
  plan.programs[0].channels[0].ops.back().kind = OpKind::RecvReduce;
  DeadlockReport report = checkDeadlockFree(plan);
  ASSERT_EQ(report.stuck.size(), 1u);
  EXPECT_EQ(report.stuck[0].rank, 1);
  EXPECT_TRUE(report.cycle.empty());
  EXPECT_NE(report.describe().find("finished without sending"), std::string::npos);
}

TEST(PlanDeadlock, SendsWaitForRoomInTheirFifo) {
  // Up to kChannelDepth unconsumed messages per FIFO, both ranks sending all first, is fine;
  // one more and both senders wait for the other to receive: a cycle of Room waits.
  EXPECT_TRUE(checkDeadlockFree(exchangeAllFirst(int(kChannelDepth))).deadlockFree());
  DeadlockReport report = checkDeadlockFree(exchangeAllFirst(int(kChannelDepth) + 1));
  ASSERT_EQ(report.stuck.size(), 2u);
  EXPECT_EQ(report.stuck[0].waits, WaitKind::Room);
  EXPECT_EQ(report.stuck[0].op, kChannelDepth);
  EXPECT_EQ(report.cycle.size(), 2u);
  EXPECT_NE(report.describe().find("rank 0 waits at channels[0].ops[8] for rank 1 to consume one "
                                   "of the 8 messages it was sent on channel 0"),
            std::string::npos)
      << report.describe();
  // The loader says so too.
  expectPlanJsonError(exchangeAllFirst(int(kChannelDepth) + 1), [](nlohmann::json &) {},
                      "programs[0].channels[0].ops[8]", "deadlock");
}

TEST(PlanDeadlock, ChannelsRunConcurrently) {
  // Rank 0 receives on channel 0 before it sends on channel 1, rank 1 the reverse order on its
  // channels: with one channel each this would deadlock, with two it does not.
  Plan plan;
  plan.collective = CollectiveKind::AllGather;
  plan.ranks = 2;
  plan.algorithm = "two-channels";
  plan.units = 2;
  plan.programs.resize(2);
  for (int r = 0; r < 2; ++r) {
    const int peer = 1 - r;
    plan.programs[size_t(r)].channel(0) = {
        makeOp(OpKind::Recv, {}, peer, {out(uint32_t(peer), uint32_t(peer) + 1)}, {})};
    plan.programs[size_t(r)].channel(1) = {makeOp(
        OpKind::Dup, {in(0, 1)}, std::nullopt, {out(uint32_t(r), uint32_t(r) + 1)}, {peer})};
  }
  // Messages travel on their channel: each rank receives on channel 0 what the other sends on
  // channel 1, which never matches.
  EXPECT_FALSE(checkDeadlockFree(plan).deadlockFree());
  for (int r = 0; r < 2; ++r) std::swap(plan.programs[size_t(r)].channels[0],
                                        plan.programs[size_t(r)].channels[1]);
  // Now sends and receives of a FIFO share channel 1 and 0... swap one rank's only: rank 0
  // receives on channel 1 while rank 1 sends on channel 1.
  std::swap(plan.programs[1].channels[0], plan.programs[1].channels[1]);
  EXPECT_TRUE(checkDeadlockFree(plan).deadlockFree()) << checkDeadlockFree(plan).describe();
}

TEST(PlanDeadlock, AfterCyclesAcrossRanks) {
  // Rank 0's channel 1 waits (after) for its channel 0, which waits for a message rank 1 sends
  // only after receiving what rank 0's channel 1 sends.
  Plan plan;
  plan.collective = CollectiveKind::AllGather;
  plan.ranks = 2;
  plan.algorithm = "after-cycle";
  plan.units = 2;
  plan.programs.resize(2);
  plan.programs[0].channel(0) = {makeOp(OpKind::Recv, {}, 1, {out(1, 2)}, {})};
  PlanOp send = makeOp(OpKind::Dup, {in(0, 1)}, std::nullopt, {out(0, 1)}, {1});
  send.after = {OpRef{0, 0}};
  plan.programs[0].channel(1) = {send};
  plan.programs[1].channel(1) = {makeOp(OpKind::Recv, {}, 0, {out(0, 1)}, {})};
  plan.programs[1].channel(0) = {makeOp(OpKind::Dup, {in(0, 1)}, std::nullopt, {out(1, 2)}, {0})};
  plan.programs[1].channels[0].ops[0].after = {OpRef{1, 0}};
  DeadlockReport report = checkDeadlockFree(plan);
  ASSERT_EQ(report.stuck.size(), 4u);
  EXPECT_NE(report.describe().find("for channels[0].ops[0] to finish"), std::string::npos)
      << report.describe();
  EXPECT_FALSE(report.cycle.empty());
}

TEST(PlanDeadlock, ManyStuckRanksAreSummarised) {
  DeadlockReport report = checkDeadlockFree(recvBeforeSendRing(32));
  EXPECT_EQ(report.stuck.size(), 32u);
  EXPECT_NE(report.describe().find("... and 24 more"), std::string::npos);
}

namespace {

/// `plan` with the symmetry its programs hold, which the test requires to exist.
Plan withFoundSymmetry(Plan plan) {
  plan.symmetry = findSymmetry(plan);
  EXPECT_TRUE(plan.symmetry.has_value()) << plan.algorithm << " on " << plan.ranks << " ranks";
  return plan;
}

}  // namespace

TEST(PlanDeadlock, SymmetricPlansAreRunAsRankZeroInLockstep) {
  for (int n : {2, 3, 5, 8, 64}) {
    EXPECT_TRUE(symmetricRunCompletes(withFoundSymmetry(ringAllReducePlan(n)))) << n;
    EXPECT_TRUE(symmetricRunCompletes(withFoundSymmetry(ringAllGatherPlan(n)))) << n;
  }
  EXPECT_FALSE(symmetricRunCompletes(ringAllReducePlan(4)));  // no symmetry: not this run
  // A stall found in lockstep is reported as the run of every rank reports it.
  const Plan cyclic = withFoundSymmetry(recvBeforeSendRing(4));
  EXPECT_FALSE(symmetricRunCompletes(cyclic));
  DeadlockReport report = checkDeadlockFree(cyclic);
  ASSERT_FALSE(report.deadlockFree());
  EXPECT_EQ(report.stuck.size(), 4u);
  EXPECT_EQ(report.cycle, (std::vector<size_t>{0, 3, 2, 1}));
  // Room in a FIFO: every rank sends one message more than the FIFO holds before receiving.
  EXPECT_TRUE(symmetricRunCompletes(withFoundSymmetry(exchangeAllFirst(int(kChannelDepth)))));
  const Plan overfull = withFoundSymmetry(exchangeAllFirst(int(kChannelDepth) + 1));
  EXPECT_FALSE(symmetricRunCompletes(overfull));
  report = checkDeadlockFree(overfull);
  ASSERT_FALSE(report.deadlockFree());
  EXPECT_EQ(report.first().waits, WaitKind::Room);
}

TEST(PlanDeadlock, SymmetricTransfersAreMatchedFromRankZero) {
  // Every rank's instance of a program that receives one block fewer than it sends.
  Plan plan = withFoundSymmetry(ringAllGatherPlan(4));
  RankProgram base = plan.programs[0];
  base.channels[0].ops.pop_back();
  for (int r = 0; r < plan.ranks; ++r)
    plan.programs[size_t(r)] = instantiateProgram(plan, *plan.symmetry, base, r);
  try {
    validatePlan(plan, "lost-recv", SymmetrySource::Instantiated);
    ADD_FAILURE() << "a plan whose ranks drop a receive was accepted";
  } catch (const PlanError &e) {
    EXPECT_NE(std::string(e.what()).find("unmatched send: rank 0 to rank 1"), std::string::npos)
        << e.what();
  }
}
