// The lower bound (runtime/sim/LowerBound.h): exact values on topologies checked by hand, the
// reference plans simulated never beating it, and every bad input named.
#include "SimTestPlans.h"
#include "SimTestTopologies.h"

#include "runtime/sim/LowerBound.h"
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Generators.h"

#include <gtest/gtest.h>

#include <string>

using namespace collplan;
using namespace collplan::simtest;

namespace {

constexpr double kBytesPerUs = 100e3;  // 100 GB/s
constexpr uint64_t kLarge = uint64_t(256) << 20;

BoundOptions linksOnly(int root = 0) {
  BoundOptions options;
  options.memory = false;
  options.root = root;
  return options;
}

void expectNear(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 1e-9 * std::max(1.0, std::abs(expected)));
}

// switch:N: every rank's one link takes in the N - 1 other blocks.
TEST(LowerBound, SwitchAllGatherIsNMinusOneBlocksOverTheLink) {
  for (int n : {2, 3, 8}) {
    const Topology topo = switchTopology(n, linkParams(100, 1.0));
    const CollectiveBound b = collectiveBound(topo, CollectiveKind::AllGather, linksOnly());
    expectNear(b.linkUsPerByte, double(n - 1) / n / kBytesPerUs);
    expectNear(b.latencyUs, 2.0);  // device - switch - device
    EXPECT_EQ(b.limit(8), "latency");
    EXPECT_EQ(b.limit(kLarge), "links");
    const CollectiveBound rs = collectiveBound(topo, CollectiveKind::ReduceScatter, linksOnly());
    expectNear(rs.linkUsPerByte, b.linkUsPerByte);
  }
}

// switch:N allreduce: 2 (N - 1) transfers of every element over N links in: the RS + AG sum.
TEST(LowerBound, SwitchAllReduceIsReduceScatterPlusAllGather) {
  const Topology topo = switchTopology(8, linkParams(100, 1.0));
  const CollectiveBound ar = collectiveBound(topo, CollectiveKind::AllReduce, linksOnly());
  expectNear(ar.linkUsPerByte, 2.0 * 7 / 8 / kBytesPerUs);
  const CollectiveBound bc = collectiveBound(topo, CollectiveKind::Broadcast, linksOnly(3));
  expectNear(bc.linkUsPerByte, 1.0 / kBytesPerUs);
  const CollectiveBound a2a = collectiveBound(topo, CollectiveKind::AllToAll, linksOnly());
  expectNear(a2a.linkUsPerByte, 7.0 / 8 / kBytesPerUs);
}

// A ring: a device takes in through two links; half the ring takes in half the blocks through
// two links too, so the single device is the tightest cut.
TEST(LowerBound, RingCutsAndLatency) {
  const Topology topo = ring(8, linkParams(100, 1.0));
  const CollectiveBound ag = collectiveBound(topo, CollectiveKind::AllGather, linksOnly());
  expectNear(ag.linkUsPerByte, 7.0 / 8 / (2 * kBytesPerUs));
  expectNear(ag.latencyUs, 4.0);  // four hops to the opposite device
  const CollectiveBound ar = collectiveBound(topo, CollectiveKind::AllReduce, linksOnly());
  expectNear(ar.linkUsPerByte, 2.0 * 7 / 8 / (2 * kBytesPerUs));
  const CollectiveBound bc = collectiveBound(topo, CollectiveKind::Broadcast, linksOnly());
  expectNear(bc.linkUsPerByte, 1.0 / (2 * kBytesPerUs));
}

// Two nodes of two GPUs whose one NIC each (10 GB/s) is the bottleneck: a node takes in the
// two blocks of the other node through its NIC.
TEST(LowerBound, TwoNodesBoundByTheNic) {
  FatTreeParams params;
  params.nvlink = LinkSpec{100, 0.5, true};
  params.pcie = LinkSpec{100, 0.5, true};
  params.nicToLeaf = LinkSpec{10, 1.0, true};
  const Topology topo = fatTree(2, 2, 1, params);
  const CollectiveBound ag = collectiveBound(topo, CollectiveKind::AllGather, linksOnly());
  expectNear(ag.linkUsPerByte, 2.0 / 4 / 10e3);
  EXPECT_NE(ag.linkCut.find("10 GB/s"), std::string::npos) << ag.linkCut;
  const CollectiveBound ar = collectiveBound(topo, CollectiveKind::AllReduce, linksOnly());
  expectNear(ar.linkUsPerByte, 1.0 / 10e3);
  // GPU - NIC - leaf - NIC - GPU
  expectNear(ag.latencyUs, 0.5 + 1.0 + 1.0 + 0.5);
}

// One rank on a device and seven on another: the one rank sends its vector and receives the
// others' sum at once, M over the link each way, while reduce-scatter + allgather would move
// 2 · 7/8 M into it. The bound is the cut's M / link, not the decomposition's.
TEST(LowerBound, UnevenDevicesAllReduceIsTheCutNotTheDecomposition) {
  const Topology topo = handBuilt({1, 7}, 0, {{0, 1, 100, 1.0}});
  const CollectiveBound ar = collectiveBound(topo, CollectiveKind::AllReduce, linksOnly());
  expectNear(ar.linkUsPerByte, 1.0 / kBytesPerUs);
}

// Memory: a received byte lands (1 write) and is read by the receiving op (1 read), and every
// output byte is written once: 3 (N - 1) / N memory bytes per allgather byte per device.
TEST(LowerBound, MemoryTermCountsLandingReadAndWrite) {
  const Topology topo = switchTopology(4, linkParams(100, 1.0, /*memGBps=*/10));
  const CollectiveBound b = collectiveBound(topo, CollectiveKind::AllGather);
  ASSERT_EQ(b.memory.size(), 4u);
  expectNear(b.memory[0].touchesPerByte, 3.0 * 3 / 4);
  expectNear(b.memoryUs(kLarge), 3.0 * 3 / 4 * double(kLarge) / 10e3);
  EXPECT_EQ(b.limit(kLarge), "memory");
  // A cache the smallest footprint fits in gives its bandwidth.
  Topology cached = topo;
  for (Device &d : cached.devices) {
    d.cacheBytes = 1 << 20;
    d.cacheBandwidthGBps = 40;
  }
  const CollectiveBound c = collectiveBound(cached, CollectiveKind::AllGather);
  expectNear(c.memory[0].bandwidthGBps(4096), 40);
  expectNear(c.memory[0].bandwidthGBps(kLarge), 10);
}

// One engine per rank, no duplication: a rank's data reaches at most twice as many ranks per
// transfer time, so ceil(log2 N) transfers of at least 2 us on switch:8.
TEST(LowerBound, OneSendPerRankCostsLogRounds) {
  Topology topo = switchTopology(8, linkParams(100, 1.0));
  for (Device &d : topo.devices) d.enginesPerRank = 1;
  const CollectiveBound b = collectiveBound(topo, CollectiveKind::Broadcast, linksOnly());
  expectNear(b.latencyUs, 3 * 2.0);
  const CollectiveBound gather = collectiveBound(topo, CollectiveKind::Gather, linksOnly());
  expectNear(gather.latencyUs, 2.0);  // collecting needs no fan-out
  topo.features.duplication = true;   // one op may send to every rank
  expectNear(collectiveBound(topo, CollectiveKind::Broadcast, linksOnly()).latencyUs, 2.0);
}

// The reference plans, simulated with and without memory, never beat the bound.
TEST(LowerBound, ReferencePlansNeverBeatIt) {
  struct Case {
    Plan plan;
    CollectiveKind kind;
  };
  int checked = 0;
  for (int n : {2, 4, 8}) {
    const std::vector<Case> cases = {{ringAllReduce(n), CollectiveKind::AllReduce},
                                     {ringAllReduce(n, 4), CollectiveKind::AllReduce},
                                     {ringAllGather(n), CollectiveKind::AllGather},
                                     {ringReduceScatter(n), CollectiveKind::ReduceScatter},
                                     {binomialBroadcast(n), CollectiveKind::Broadcast},
                                     {recursiveDoublingAllReduce(n), CollectiveKind::AllReduce},
                                     {pairwiseAllToAll(n), CollectiveKind::AllToAll}};
    for (const Topology &topo : {switchTopology(n, linkParams(100, 1.0, 50)),
                                 ring(n, linkParams(100, 1.0, 50)),
                                 fullyConnected(n, linkParams(100, 1.0, 50))})
      for (const Case &c : cases)
        for (bool memory : {false, true})
          for (uint64_t bytes : {uint64_t(8), uint64_t(1) << 20, kLarge}) {
            BoundOptions options;
            options.memory = memory;
            const double bound = collectiveBound(topo, c.kind, options).timeUs(bytes);
            SimOptions sim;
            sim.memory = memory;
            const double simulated = simulateTimeUs(c.plan, topo, bytes, sim);
            EXPECT_GE(simulated, bound * (1 - 1e-9))
                << c.plan.algorithm << " " << toString(c.kind) << " N=" << n << " on "
                << topo.name << " at " << bytes << " B, memory " << memory;
            ++checked;
          }
  }
  EXPECT_EQ(checked, 3 * 3 * 7 * 2 * 3);
}

// Every bad input is refused with its field and reason.
TEST(LowerBound, BadInputsNameTheFieldAndReason) {
  auto message = [](const Topology &topo, CollectiveKind kind, BoundOptions options = {}) {
    try {
      collectiveBound(topo, kind, options);
    } catch (const BoundError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const Topology good = switchTopology(4, linkParams(100, 1.0));
  BoundOptions root;
  root.root = 4;
  EXPECT_EQ(message(good, CollectiveKind::Broadcast, root), "bound: root: rank 4 is outside 0..3");
  root.root = -1;
  EXPECT_EQ(message(good, CollectiveKind::Gather, root), "bound: root: rank -1 is outside 0..3");
  Topology unfinalized = good;
  unfinalized.rankToDevice.clear();
  EXPECT_EQ(message(unfinalized, CollectiveKind::AllGather),
            "bound: topology: is not finalized (call Topology::finalize())");
  Topology empty;
  EXPECT_EQ(message(empty, CollectiveKind::AllGather), "bound: topology: has no ranks");
  Topology zeroLink = good;
  zeroLink.links[2].bandwidthGBps = 0;
  EXPECT_EQ(message(zeroLink, CollectiveKind::AllGather),
            "bound: links[2].bandwidth_gbps: must be a finite number > 0, got 0");
  Topology negativeLatency = good;
  negativeLatency.links[1].latencyUs = -1;
  EXPECT_EQ(message(negativeLatency, CollectiveKind::AllGather),
            "bound: links[1].latency_us: must be a finite number >= 0, got -1");
  Topology noMemory = good;
  noMemory.devices[3].memBandwidthGBps = 0;
  EXPECT_EQ(message(noMemory, CollectiveKind::AllGather),
            "bound: devices[3].mem_bandwidth_gbps: must be a finite number > 0, got 0");
  BoundOptions linksOnlyOptions;
  linksOnlyOptions.memory = false;
  EXPECT_EQ(message(noMemory, CollectiveKind::AllGather, linksOnlyOptions), "no error");
  const Topology cut = handBuilt({1, 1}, 0, {});
  EXPECT_EQ(message(cut, CollectiveKind::AllGather),
            "bound: links: no path from device 'd0' to device 'd1'");
}

// The table people read: its terms and a row per size.
TEST(LowerBound, FormatNamesTheTermsAndRows) {
  const Topology topo = switchTopology(4, linkParams(100, 1.0));
  const CollectiveBound b = collectiveBound(topo, CollectiveKind::AllGather);
  const std::string text = formatBound(b, topo, {8, kLarge});
  EXPECT_NE(text.find("# lower bound: allgather on 4 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("# latency:   2.000 us"), std::string::npos) << text;
  EXPECT_NE(text.find("133.33 GB/s algbw at most"), std::string::npos) << text;
  EXPECT_NE(text.find("256 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("latency\n"), std::string::npos) << text;
}

}  // namespace
