// Outputs of a simulation: consistent timelines, link bytes, critical path and the JSON form.
#include "SimTestPlans.h"
#include "SimTestTopologies.h"
#include "runtime/plan/Transfers.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

#include <cmath>

namespace collplan {
namespace {

using namespace simtest;

/// Program order, recv-after-arrival and arrival-after-send hold for every op of every rank
/// (single-channel plans).
void expectConsistentTimelines(const Plan &plan, const SimResult &result) {
  std::map<std::pair<int, uint32_t>, std::pair<int, int>> senders;  // (receiver, op) -> sender's
  for (const PlanTransfer &t : planTransfers(plan))
    senders[{t.receiver, t.recv.op}] = {t.sender, int(t.send.op)};
  double latest = 0;
  for (int r = 0; r < plan.ranks; ++r) {
    const auto &ops = plan.programs[r].channels.at(0).ops;
    ASSERT_EQ(result.timelines[r].size(), ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      const OpTiming &t = result.timelines[r][i];
      SCOPED_TRACE("rank " + std::to_string(r) + " op " + std::to_string(i));
      EXPECT_GE(t.startUs, 0);
      EXPECT_GE(t.endUs, t.startUs);
      if (i > 0) {
        EXPECT_GE(t.startUs, result.timelines[r][i - 1].endUs);
      }
      if (ops[i].recv) {
        ASSERT_FALSE(std::isnan(t.dataReadyUs));
        EXPECT_GE(t.startUs, t.dataReadyUs);
        auto [sr, si] = senders.at({r, uint32_t(i)});
        EXPECT_GE(t.dataReadyUs, result.timelines[sr][si].startUs);
        EXPECT_LE(t.dataReadyUs, result.timelines[sr][si].endUs);
      } else {
        EXPECT_TRUE(std::isnan(t.dataReadyUs));
      }
      latest = std::max(latest, t.endUs);
    }
  }
  EXPECT_EQ(result.totalUs, latest);
}

TEST(SimOutput, TimelinesAreConsistentUnderContentionAndMemory) {
  for (int n : {3, 8}) {
    Topology topo = ring(n, linkParams(50, 1.0, 200));
    for (int slices : {1, 4}) {
      Plan plan = ringAllReduce(n, slices);
      SimResult result = simulate(plan, topo, uint64_t(1) << 24);
      expectConsistentTimelines(plan, result);
      EXPECT_GT(result.totalUs,
                simulateTimeUs(plan, topo, uint64_t(1) << 24, SimOptions{false, false}));
    }
  }
  Topology star = switchTopology(6, linkParams(50, 1.0, 200));
  Plan plan = pairwiseAllToAll(6);
  expectConsistentTimelines(plan, simulate(plan, star, 123457));
}

TEST(SimOutput, LinkBytesAddUpToBytesMoved) {
  const uint64_t bytes = 1 << 20;
  for (int n : {2, 5, 8}) {
    Topology topo = ring(n, linkParams(50, 1.0));
    SimResult result = simulate(ringAllReduce(n, 2), topo, bytes);
    double linkBytes = 0;
    for (const LinkUsage &usage : result.links) linkBytes += usage.bytesForward + usage.bytesReverse;
    EXPECT_EQ(result.transfers, uint64_t(n) * 2 * (n - 1) * 2);
    EXPECT_NEAR(result.bytesMoved, double(result.transfers) * bytes / (2.0 * n), 1e-9 * bytes);
    EXPECT_NEAR(linkBytes, result.bytesMoved, 1e-9 * bytes);  // every ring transfer is one hop
    // Through a switch every transfer crosses two links.
    Topology star = switchTopology(n, linkParams(50, 1.0));
    SimResult viaSwitch = simulate(pairwiseAllToAll(n), star, bytes);
    double starBytes = 0;
    for (const LinkUsage &usage : viaSwitch.links) {
      starBytes += usage.bytesForward + usage.bytesReverse;
      EXPECT_LE(usage.utilisation, 1.0 + 1e-12);
    }
    EXPECT_NEAR(starBytes, 2 * viaSwitch.bytesMoved, 1e-9 * bytes);
  }
}

TEST(SimOutput, CriticalPathRunsFromTimeZeroToTheEnd) {
  const int n = 5;
  Topology topo = ring(n, linkParams(10, 2.0));
  Plan plan = ringAllReduce(n);
  SimResult result = simulate(plan, topo, 1 << 20, SimOptions{false, false});
  const auto &path = result.criticalPath;
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path.front().startUs, 0);
  EXPECT_EQ(path.front().cause, CriticalCause::Start);
  EXPECT_EQ(path.back().endUs, result.totalUs);
  int transfers = 0;
  for (size_t k = 1; k < path.size(); ++k) {
    EXPECT_LE(path[k - 1].endUs, path[k].startUs + 1e-9);
    if (path[k].cause == CriticalCause::Transfer) {
      ++transfers;
      EXPECT_NE(path[k - 1].rank, path[k].rank);
    } else {
      EXPECT_EQ(path[k - 1].rank, path[k].rank);
      EXPECT_EQ(path[k - 1].op + 1, path[k].op);
    }
  }
  EXPECT_EQ(transfers, 2 * (n - 1));  // the α-β rounds of ring allreduce
}

TEST(SimOutput, EachSendArrivesAfterItsOwnRouteLatency) {
  // Rank 0 dups to a neighbour (1 hop, 1 us) and a far rank (2 hops, 3 us): each receiver gets
  // the data after its own latency; rank 0 is busy until the last delivery. Both sends cross
  // link 0-1 (no multicast), so it carries the data twice.
  Topology topo = handBuilt({1, 1, 1}, 0, {{0, 1, 10, 1.0}, {1, 2, 10, 2.0}});
  topo.features.duplication = true;
  Plan plan = emptyPlan(CollectiveKind::Broadcast, 3, 1);
  PlanOp dup;
  dup.kind = OpKind::Dup;
  dup.srcs = {unitsOf(BufferKind::In, 0)};
  dup.sends = {1, 2};
  plan.programs[0].channel(0) = {dup};
  plan.programs[1].channel(0) = {recvOp(unitsOf(BufferKind::Out, 0), 0)};
  plan.programs[2].channel(0) = {recvOp(unitsOf(BufferKind::Out, 0), 0)};
  const double bytes = 1e5, transmit = 2 * bytes / 10e3;
  SimResult result = simulate(plan, topo, uint64_t(bytes), SimOptions{true, false});
  EXPECT_DOUBLE_EQ(result.timelines[1][0].dataReadyUs, transmit + 1.0);
  EXPECT_DOUBLE_EQ(result.timelines[2][0].dataReadyUs, transmit + 3.0);
  EXPECT_DOUBLE_EQ(result.timelines[0][0].endUs, transmit + 3.0);
  expectConsistentTimelines(plan, result);
}

TEST(SimOutput, JsonHoldsEveryOp) {
  Topology topo = ring(3, linkParams(10, 2.0));
  Plan plan = ringAllGather(3);
  SimResult result = simulate(plan, topo, 3000);
  nlohmann::json json = simResultToJson(result, plan);
  EXPECT_DOUBLE_EQ(json.at("total_us").get<double>(), result.totalUs);
  ASSERT_EQ(json.at("timelines").size(), 3u);
  const auto &ops = json.at("timelines")[1].at("ops");
  ASSERT_EQ(ops.size(), plan.programs[1].channel(0).size());
  EXPECT_EQ(ops[0].at("kind"), "copy");
  EXPECT_FALSE(ops[0].contains("data_ready_us"));
  EXPECT_TRUE(ops.back().contains("data_ready_us"));
  EXPECT_EQ(json.at("links").size(), topo.links.size());
  EXPECT_EQ(json.at("critical_path").size(), result.criticalPath.size());
}

}  // namespace
}  // namespace collplan
