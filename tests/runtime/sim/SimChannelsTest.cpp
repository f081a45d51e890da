// Channels as engines: a rank's channels run at once up to its device's engine counts, `after`
// orders them, a send waits for room on its connection, and barrier tokens cost latency only.
#include "SimTestPlans.h"
#include "SimTestTopologies.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

namespace collplan {
namespace {

using namespace simtest;

constexpr double kTolerance = 1e-9;
const SimOptions kLinksOnly{true, false};

void expectRel(double got, double want) { EXPECT_NEAR(got, want, kTolerance * want); }

constexpr double kBandwidthGBps = 10, kLatencyUs = 0.5, kUnitBytes = 1 << 20;
constexpr double kUnitUs = kUnitBytes / (kBandwidthGBps * 1e3);  // one unit over one link

/// Rank 0 sends one unit to rank 1 on channel 0 and one to rank 2 on channel 1; full:3 gives
/// each its own link, so only the engines can make them wait for each other.
Plan twoChannelsOfRankZero() {
  Plan plan = emptyPlan(CollectiveKind::AllToAll, 3, 2);
  plan.programs[0].channel(0).push_back(sendOp(unitsOf(BufferKind::In, 0), 1));
  plan.programs[0].channel(1).push_back(sendOp(unitsOf(BufferKind::In, 1), 2));
  plan.programs[1].channel(0).push_back(recvOp(unitsOf(BufferKind::Out, 0), 0));
  plan.programs[2].channel(1).push_back(recvOp(unitsOf(BufferKind::Out, 1), 0));
  return plan;
}

Topology fullWithEngines(int enginesPerRank) {
  Topology topo = fullyConnected(3, linkParams(kBandwidthGBps, kLatencyUs));
  for (Device &device : topo.devices) device.enginesPerRank = enginesPerRank;
  return topo;
}

TEST(SimChannels, ARanksChannelsRunAtOnce) {
  const Plan plan = twoChannelsOfRankZero();
  const SimResult result = simulate(plan, fullWithEngines(0), uint64_t(2 * kUnitBytes), kLinksOnly);
  expectRel(result.timing(plan, 0, {0, 0}).endUs, kUnitUs + kLatencyUs);
  expectRel(result.timing(plan, 0, {1, 0}).endUs, kUnitUs + kLatencyUs);
  expectRel(result.totalUs, kUnitUs + kLatencyUs);
}

TEST(SimChannels, OneEnginePerRankRunsTheChannelsInTurn) {
  const Plan plan = twoChannelsOfRankZero();
  const SimResult result = simulate(plan, fullWithEngines(1), uint64_t(2 * kUnitBytes), kLinksOnly);
  expectRel(result.totalUs, 2 * (kUnitUs + kLatencyUs));
}

TEST(SimChannels, ADevicesEnginesBoundAllItsRanks) {
  // Device 0 holds ranks 0 and 1; each sends one unit to a rank of its own device over its own
  // link. With two engines for the device they overlap; with one they take turns.
  auto build = [](int engines) {
    Topology topo = handBuilt({2, 1, 1}, 0,
                              {{0, 1, kBandwidthGBps, kLatencyUs}, {0, 2, kBandwidthGBps, kLatencyUs}});
    topo.devices[0].engines = engines;
    return topo;
  };
  Plan plan = emptyPlan(CollectiveKind::AllToAll, 4, 2);
  plan.programs[0].channel(0).push_back(sendOp(unitsOf(BufferKind::In, 0), 2));
  plan.programs[1].channel(0).push_back(sendOp(unitsOf(BufferKind::In, 1), 3));
  plan.programs[2].channel(0).push_back(recvOp(unitsOf(BufferKind::Out, 0), 0));
  plan.programs[3].channel(0).push_back(recvOp(unitsOf(BufferKind::Out, 1), 1));
  expectRel(simulate(plan, build(2), uint64_t(2 * kUnitBytes), kLinksOnly).totalUs,
            kUnitUs + kLatencyUs);
  expectRel(simulate(plan, build(1), uint64_t(2 * kUnitBytes), kLinksOnly).totalUs,
            2 * (kUnitUs + kLatencyUs));
}

TEST(SimChannels, AfterOrdersChannelsOfOneRank) {
  Plan plan = twoChannelsOfRankZero();
  plan.programs[0].channel(1)[0].after = {OpRef{0, 0}};  // the send to rank 2 waits for the other
  const SimResult result = simulate(plan, fullWithEngines(0), uint64_t(2 * kUnitBytes), kLinksOnly);
  expectRel(result.timing(plan, 0, {1, 0}).startUs, kUnitUs + kLatencyUs);
  expectRel(result.totalUs, 2 * (kUnitUs + kLatencyUs));
}

TEST(SimChannels, ASendWaitsForRoomOnItsConnection) {
  // Rank 1 first takes a long message from rank 2, then kChannelDepth + 1 short ones from rank
  // 0. Rank 0's last send finds kChannelDepth unconsumed messages ahead of it and starts only
  // when rank 1 has consumed the first.
  const uint32_t shorts = kChannelDepth + 1, longUnits = 64;
  Plan plan = emptyPlan(CollectiveKind::AllToAll, 3, shorts + longUnits);
  plan.programs[2].channel(0).push_back(sendOp(unitsOf(BufferKind::In, 0, longUnits), 1));
  plan.programs[1].channel(0).push_back(recvOp(unitsOf(BufferKind::Out, 0, longUnits), 2));
  for (uint32_t k = 0; k < shorts; ++k) {
    plan.programs[0].channel(0).push_back(sendOp(unitsOf(BufferKind::In, longUnits + k), 1));
    plan.programs[1].channel(0).push_back(recvOp(unitsOf(BufferKind::Out, longUnits + k), 0));
  }
  const Topology topo = fullyConnected(3, linkParams(kBandwidthGBps, kLatencyUs));
  const SimResult result =
      simulate(plan, topo, uint64_t((shorts + longUnits) * kUnitBytes), kLinksOnly);
  const double firstShortConsumed = result.timing(plan, 1, {0, 1}).endUs;
  EXPECT_LT(result.timing(plan, 0, {0, kChannelDepth - 1}).startUs, firstShortConsumed);
  expectRel(result.timing(plan, 0, {0, kChannelDepth}).startUs, firstShortConsumed);
}

TEST(SimChannels, BarrierTokensCostTheirLatencyOnly) {
  // Dissemination on 4 ranks: two rounds of token messages, each one hop through the switch.
  const Topology topo = switchTopology(4, linkParams(kBandwidthGBps, kLatencyUs));
  const Plan plan = disseminationBarrierPlan(4);
  expectRel(simulate(plan, topo, 0, kLinksOnly).totalUs, 2 * 2 * kLatencyUs);
}

}  // namespace
}  // namespace collplan
