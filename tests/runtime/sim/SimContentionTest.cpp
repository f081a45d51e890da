// Hand-built link-contention cases with exact answers: shared links, max-min splits, half duplex.
#include "SimTestPlans.h"
#include "SimTestTopologies.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

namespace collplan {
namespace {

using namespace simtest;

constexpr double kTolerance = 1e-9;
const SimOptions kLinksOnly{true, false};
const SimOptions kNoContention{false, false};

void expectRel(double got, double want) { EXPECT_NEAR(got, want, kTolerance * want); }

/// Each (from, to, units) is one send of `units` units from `from` to `to`. Every rank runs its
/// sends first (at time 0 when it has one), then its recvs.
Plan concurrentSends(int ranks, uint32_t units,
                     const std::vector<std::tuple<int, int, uint32_t>> &transfers) {
  Plan plan = emptyPlan(CollectiveKind::AllToAll, ranks, units);
  std::vector<std::vector<PlanOp>> recvs(ranks);
  uint32_t offset = 0, id = 0;
  for (auto [from, to, length] : transfers) {
    plan.programs[from].channel(0).push_back(
        sendOp(unitsOf(BufferKind::In, offset, length), to));
    recvs[to].push_back(recvOp(unitsOf(BufferKind::Out, offset, length), from));
    offset += length;
    ++id;
  }
  for (int r = 0; r < ranks; ++r)
    for (const PlanOp &op : recvs[r]) plan.programs[r].channel(0).push_back(op);
  return plan;
}

TEST(SimContention, TwoFlowsOnOneLinkTakeTwiceAsLong) {
  // Ranks 0 and 1 send M to rank 2 through one switch: they share the switch → d2 link.
  const double bw = 10, latency = 0.7, bytes = 1 << 20;
  Topology topo = switchTopology(3, linkParams(bw, latency));
  Plan plan = concurrentSends(3, 2, {{0, 2, 1}, {1, 2, 1}});
  SimResult shared = simulate(plan, topo, uint64_t(2 * bytes), kLinksOnly);
  expectRel(shared.timelines[0][0].endUs, 2 * bytes / (bw * 1e3) + 2 * latency);
  expectRel(shared.timelines[1][0].endUs, 2 * bytes / (bw * 1e3) + 2 * latency);
  expectRel(shared.totalUs, 2 * bytes / (bw * 1e3) + 2 * latency);
  SimResult alone = simulate(plan, topo, uint64_t(2 * bytes), kNoContention);
  expectRel(alone.totalUs, bytes / (bw * 1e3) + 2 * latency);
}

TEST(SimContention, EachTopologySimulatedGetsItsOwnRoutes) {
  // The simulator keeps the routes of the last topology it simulated. Three fully connected
  // devices; in `detour` the 0-1 link is slow, so rank 0's message to rank 1 goes through 2.
  const double bw = 10, latency = 1, bytes = 1e4;
  const Topology direct = fullyConnected(3, linkParams(bw, latency));
  Topology detour = direct;
  for (Link &link : detour.links)
    if ((link.a == 0 && link.b == 1) || (link.a == 1 && link.b == 0)) link.latencyUs = 1000;
  const Plan plan = concurrentSends(3, 1, {{0, 1, 1}});
  const double oneHop = simulate(plan, direct, uint64_t(bytes), kNoContention).totalUs;
  const double twoHops = simulate(plan, detour, uint64_t(bytes), kNoContention).totalUs;
  expectRel(oneHop, bytes / (bw * 1e3) + latency);
  expectRel(twoHops, bytes / (bw * 1e3) + 2 * latency);
  EXPECT_EQ(simulate(plan, direct, uint64_t(bytes), kNoContention).totalUs, oneHop);
}

TEST(SimContention, RatesAreRecomputedWhenAFlowEnds) {
  // Flows of u and 2u bytes share a link: both at B/2 until 2u/B, then the longer one at B.
  const double bw = 4, unitBytes = 3e5;
  Topology topo = switchTopology(3, linkParams(bw, 0));
  Plan plan = concurrentSends(3, 3, {{0, 2, 1}, {1, 2, 2}});
  SimResult result = simulate(plan, topo, uint64_t(3 * unitBytes), kLinksOnly);
  expectRel(result.timelines[0][0].endUs, 2 * unitBytes / (bw * 1e3));
  expectRel(result.timelines[1][0].endUs, 3 * unitBytes / (bw * 1e3));
  EXPECT_GE(result.rateUpdates, 2u);
}

TEST(SimContention, ThreeFlowsGetTheMaxMinSplit) {
  // d1 (ranks 1 and 2) has a 1 GB/s uplink shared by f2 = 1→4 and f3 = 2→3: 0.5 each.
  // f1 = 0→4 shares the 3 GB/s link into d3 with f2 and takes what f2 leaves: 2.5.
  Topology topo = handBuilt({1, 2, 1, 1}, 1,
                            {{0, 4, 10}, {1, 4, 1}, {2, 4, 10}, {3, 4, 3}});
  const double bytes = 1e6;
  Plan plan = concurrentSends(5, 3, {{0, 4, 1}, {1, 4, 1}, {2, 3, 1}});
  SimResult result = simulate(plan, topo, uint64_t(3 * bytes), kLinksOnly);
  expectRel(result.timelines[0][0].endUs, bytes / 2.5e3);
  expectRel(result.timelines[1][0].endUs, bytes / 0.5e3);
  expectRel(result.timelines[2][0].endUs, bytes / 0.5e3);
}

TEST(SimContention, HalfDuplexLinksShareBothDirections) {
  const double bw = 8, bytes = 5e5;
  Plan plan = concurrentSends(2, 2, {{0, 1, 1}, {1, 0, 1}});
  for (bool duplex : {true, false}) {
    Topology topo = handBuilt({1, 1}, 0, {{0, 1, bw, 0.0, duplex}});
    SimResult result = simulate(plan, topo, uint64_t(2 * bytes), kLinksOnly);
    expectRel(result.totalUs, (duplex ? 1 : 2) * bytes / (bw * 1e3));
    EXPECT_NEAR(result.links[0].utilisation, 1.0, 1e-9) << "duplex=" << duplex;
  }
}

TEST(SimContention, RoutesThroughIntermediateChipsContend) {
  // A line 0 - 1 - 2: the flow 0 → 2 is forwarded by chip 1 and shares link 1-2 with 1 → 2.
  const double bw = 20, latency = 2, bytes = 4e6;
  Topology topo = line(3, linkParams(bw, latency));
  Plan plan = concurrentSends(3, 2, {{0, 2, 1}, {1, 2, 1}});
  SimResult result = simulate(plan, topo, uint64_t(2 * bytes), kLinksOnly);
  expectRel(result.timelines[0][0].endUs, 2 * bytes / (bw * 1e3) + 2 * latency);
  expectRel(result.timelines[1][0].endUs, 2 * bytes / (bw * 1e3) + latency);
  EXPECT_DOUBLE_EQ(result.links[1].bytesForward + result.links[1].bytesReverse, 2 * bytes);
  EXPECT_DOUBLE_EQ(result.links[0].bytesForward + result.links[0].bytesReverse, bytes);
}

TEST(SimContention, MulticastCrossesASharedHopOnce) {
  // Rank 0 dups to ranks 1 and 2 through one switch: without multicast the uplink carries the
  // data twice; with it, once.
  const double bw = 10, bytes = 1e6;
  Plan plan = emptyPlan(CollectiveKind::Broadcast, 3, 1);
  PlanOp dup;
  dup.kind = OpKind::Dup;
  dup.srcs = {unitsOf(BufferKind::In, 0)};
  dup.sends = {1, 2};
  plan.programs[0].channel(0).push_back(dup);
  plan.programs[1].channel(0).push_back(recvOp(unitsOf(BufferKind::Out, 0), 0));
  plan.programs[2].channel(0).push_back(recvOp(unitsOf(BufferKind::Out, 0), 0));
  for (bool multicast : {false, true}) {
    GeneratorParams params = linkParams(bw, 0);
    params.features.duplication = true;
    params.features.multicast = multicast;
    Topology topo = switchTopology(3, params);
    SimResult result = simulate(plan, topo, uint64_t(bytes), kLinksOnly);
    expectRel(result.totalUs, (multicast ? 1 : 2) * bytes / (bw * 1e3));
  }
}

}  // namespace
}  // namespace collplan
