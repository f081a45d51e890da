// Every input the simulator cannot simulate is a SimError whose message says what and where.
#include "SimTestPlans.h"
#include "SimTestTopologies.h"
#include "runtime/sim/Simulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace collplan {
namespace {

using namespace simtest;
using ::testing::HasSubstr;

std::string simulateError(const Plan &plan, const Topology &topo, const SimOptions &options = {}) {
  try {
    simulate(plan, topo, 1 << 20, options);
  } catch (const SimError &e) {
    return e.what();
  }
  ADD_FAILURE() << "simulate accepted the input";
  return "";
}

Plan exchange() {  // rank 0 sends to rank 1
  Plan plan = emptyPlan(CollectiveKind::Broadcast, 2, 1);
  plan.programs[0].channel(0) = {sendOp(unitsOf(BufferKind::In, 0), 1)};
  plan.programs[1].channel(0) = {recvOp(unitsOf(BufferKind::Out, 0), 0)};
  return plan;
}

TEST(SimErrors, RankCountMustMatchTheTopology) {
  std::string message = simulateError(ringAllReduce(4), ring(3, linkParams(10, 1)));
  EXPECT_THAT(message, HasSubstr("simulate: the plan has 4 ranks but topology"));
  EXPECT_THAT(message, HasSubstr("has 3"));
  Plan plan = ringAllReduce(3);
  plan.programs.pop_back();
  EXPECT_THAT(simulateError(plan, ring(3, linkParams(10, 1))),
              HasSubstr("the plan has 3 ranks but 2 rank programs"));
}

TEST(SimErrors, DuplicationNeedsTheFeature) {
  Plan plan = emptyPlan(CollectiveKind::Broadcast, 1, 1);
  PlanOp dup;
  dup.kind = OpKind::Dup;
  dup.srcs = {unitsOf(BufferKind::In, 0)};
  dup.dsts = {unitsOf(BufferKind::Out, 0), unitsOf(BufferKind::Tmp, 0)};
  plan.programs[0].channel(0) = {dup};
  Topology topo = handBuilt({1}, 0, {});
  EXPECT_THAT(simulateError(plan, topo),
              HasSubstr("rank 0 channel 0 op 0 (dup) writes one value to 2 places, which needs the feature "
                        "'duplication' that topology 'hand-built' lacks"));
  EXPECT_TRUE(planNeedsDuplication(plan));
  topo.features.duplication = true;
  EXPECT_NO_THROW(simulate(plan, topo, 64));
}

TEST(SimErrors, RemoteReadsNeedTheFeature) {
  Plan plan = exchange();
  plan.params["remote_reads"] = true;
  Topology topo = handBuilt({1, 1}, 0, {{0, 1, 10}});
  EXPECT_THAT(simulateError(plan, topo),
              HasSubstr("the plan reads peers' memory (params.remote_reads) but topology "
                        "'hand-built' lacks the feature 'remote_reads'"));
  topo.features.remoteReads = true;
  EXPECT_NO_THROW(simulate(plan, topo, 64));
}

TEST(SimErrors, MissingRouteIsNamed) {
  Topology topo = handBuilt({1, 1}, 0, {});
  EXPECT_THAT(simulateError(exchange(), topo),
              HasSubstr("no route from rank 0 (device 'd0') to rank 1 (device 'd1') in topology "
                        "'hand-built'"));
}

TEST(SimErrors, ZeroBandwidthIsNamed) {
  Topology topo = handBuilt({1, 1}, 0, {{0, 1, 0}});
  EXPECT_THAT(simulateError(exchange(), topo),
              HasSubstr("link 0 (device 'd0' - device 'd1'), on the route from rank 0 to rank 1, "
                        "has bandwidth 0 GB/s (must be positive)"));
  Topology shared = handBuilt({2}, 0, {});
  shared.intraDeviceBandwidthGBps = 0;
  EXPECT_THAT(simulateError(exchange(), shared),
              HasSubstr("rank 0 sends to rank 1 on the same device 'd0' but topology "
                        "'hand-built' has intraDeviceBandwidthGBps 0 (must be positive)"));
  Topology noMemory = handBuilt({1, 1}, 0, {{0, 1, 10}}, 0);
  EXPECT_THAT(simulateError(exchange(), noMemory),
              HasSubstr("device 'd0' has memBandwidthGBps 0; the memory model needs a positive "
                        "bandwidth"));
  EXPECT_NO_THROW(simulate(exchange(), noMemory, 64, SimOptions{true, false}));
}

TEST(SimErrors, DeadlockReportsTheStuckRanks) {
  Plan plan = emptyPlan(CollectiveKind::AllToAll, 3, 3);
  for (int r = 0; r < 2; ++r) {
    int peer = 1 - r;
    plan.programs[r].channel(0) = {recvOp(unitsOf(BufferKind::Out, 0), peer),
                            sendOp(unitsOf(BufferKind::In, 0), peer)};
  }
  plan.programs[2].channel(0) = {copyOp(unitsOf(BufferKind::In, 0), unitsOf(BufferKind::Out, 0))};
  EXPECT_THAT(simulateError(plan, ring(3, linkParams(10, 1))),
              HasSubstr("deadlock: 2 of 3 ranks never finish: rank 0 channel 0 is stuck at op 0 "
                        "(recv) waiting for a message from rank 1; rank 1 channel 0 is stuck at "
                        "op 0 (recv) waiting for a message from rank 0"));
}

TEST(SimErrors, UnmatchedTransfersAreNamed) {
  Topology topo = handBuilt({1, 1}, 0, {{0, 1, 10}});
  Plan lostSend = exchange();
  lostSend.programs[1].channel(0).clear();
  EXPECT_THAT(simulateError(lostSend, topo),
              HasSubstr("rank 0 to rank 1 on channel 0: 1 messages are sent but 0 received"));
  Plan otherChannel = exchange();
  std::swap(otherChannel.programs[1].channel(0), otherChannel.programs[1].channel(1));
  EXPECT_THAT(simulateError(otherChannel, topo),
              HasSubstr("rank 0 to rank 1 on channel 0: 1 messages are sent but 0 received"));
  Plan twice = exchange();
  twice.programs[0].channel(0).push_back(twice.programs[0].channel(0)[0]);
  EXPECT_THAT(simulateError(twice, topo),
              HasSubstr("rank 0 to rank 1 on channel 0: 2 messages are sent but 1 received"));
  Plan badPeer = exchange();
  badPeer.programs[0].channel(0)[0].sends[0] = 5;
  EXPECT_THAT(simulateError(badPeer, topo),
              HasSubstr("rank 0 channel 0 op 0 (send) sends to rank 5, which is itself or outside "
                        "0..1"));
  Plan badLength = exchange();
  badLength.units = 2;
  badLength.programs[1].channel(0)[0].dsts[0].length = 2;
  EXPECT_THAT(simulateError(badLength, topo),
              HasSubstr("message 0 from rank 0 to rank 1 on channel 0: rank 0 channel 0 op 0 "
                        "(send) sends 1 units but rank 1 channel 0 op 0 (recv) receives 2"));
  Plan badAfter = exchange();
  badAfter.programs[1].channel(0)[0].after = {OpRef{3, 0}};
  EXPECT_THAT(simulateError(badAfter, topo),
              HasSubstr("rank 1 channel 0 op 0 (recv) waits for channel 3 op 0, which is not an op "
                        "of another channel of rank 1"));
  Plan partial = exchange();
  partial.onlyRank = 1;
  EXPECT_THAT(simulateError(partial, topo),
              HasSubstr("the plan holds only the program of rank 1 (loaded for one rank)"));
}

TEST(SimErrors, BadPlanOrTopologyShape) {
  Topology topo = handBuilt({1, 1}, 0, {{0, 1, 10}});
  Plan noUnits = exchange();
  noUnits.units = 0;
  EXPECT_THAT(simulateError(noUnits, topo), HasSubstr("the plan has 0 units"));
  Topology stale = topo;
  stale.rankToDevice.clear();
  EXPECT_THAT(simulateError(exchange(), stale), HasSubstr("is not finalized"));
}

}  // namespace
}  // namespace collplan
