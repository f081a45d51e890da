// Presets: shape and the published figures they carry.
#include "TopologyTestUtil.h"

#include "runtime/topology/Presets.h"
#include "runtime/topology/Queries.h"

namespace collplan::test {
namespace {

TEST(TopologyPresets, Trn2) {
  Topology topo = trn2Preset();
  expectWellFormed(topo);
  EXPECT_EQ(topo.name, "trn2");
  EXPECT_EQ(topo.numRanks(), 64);
  EXPECT_EQ(topo.devices.size(), 16u);
  EXPECT_EQ(topo.dims, (std::vector<int>{4, 4}));
  EXPECT_TRUE(topo.wrap);
  EXPECT_EQ(topo.routing, Routing::DimensionOrder);
  EXPECT_EQ(topo.links.size(), 32u);
  for (const Link &link : topo.links) {
    EXPECT_DOUBLE_EQ(link.bandwidthGBps, 160);
    EXPECT_GE(link.latencyUs, 1.0);
    EXPECT_LE(link.latencyUs, 2.0);
  }
  for (const Device &chip : topo.devices) {
    EXPECT_DOUBLE_EQ(chip.memBandwidthGBps, 2900);
    EXPECT_EQ(chip.ranks.size(), 4u);
  }
  EXPECT_TRUE(topo.features.duplication);
  EXPECT_TRUE(topo.features.remoteReads);
  EXPECT_EQ(hamiltonianCycles(topo, 2).size(), 2u);
}

TEST(TopologyPresets, NvswitchH100) {
  Topology topo = nvswitchH100Preset();
  expectWellFormed(topo);
  EXPECT_EQ(topo.numRanks(), 8);
  ASSERT_EQ(topo.switches.size(), 1u);
  EXPECT_EQ(topo.switches[0].kind, "nvswitch");
  for (const Link &link : topo.links)
    EXPECT_DOUBLE_EQ(link.bandwidthGBps, 450);
  for (const Device &gpu : topo.devices) {
    EXPECT_EQ(gpu.kind, "gpu");
    EXPECT_DOUBLE_EQ(gpu.memBandwidthGBps, 3350);
  }
  EXPECT_EQ(hopCount(topo, 0, 7), 2);
  EXPECT_TRUE(topo.features.multicast);
}

TEST(TopologyPresets, Pcie7) {
  Topology topo = pcie7Preset();
  expectWellFormed(topo);
  EXPECT_EQ(topo.numRanks(), 7);
  EXPECT_EQ(topo.switches.size(), 1u);
  ASSERT_EQ(topo.links.size(), 7u);
  for (const Link &link : topo.links) {
    EXPECT_DOUBLE_EQ(link.bandwidthGBps, 60);
    EXPECT_TRUE(link.duplex);
  }
  EXPECT_DOUBLE_EQ(routeBandwidthGBps(topo, 0, 6), 60);
}

TEST(TopologyPresets, ClusterScalesTo1024Ranks) {
  Topology small = clusterPreset(2);
  expectWellFormed(small);
  EXPECT_EQ(small.numRanks(), 16);
  Topology topo = clusterPreset(128);
  EXPECT_EQ(topo.numRanks(), 1024);
  EXPECT_EQ(topo.nodeOf(1023), 127);
  EXPECT_EQ(topo.nodeOf(8), 1);
  // Same rail across leaf groups (node 0 → node 127) goes over a spine.
  EXPECT_EQ(hopCount(topo, 0, 1016), 6);
  EXPECT_EQ(hopCount(topo, 0, 8), 4);
  EXPECT_DOUBLE_EQ(routeBandwidthGBps(topo, 0, 8), 50);
  EXPECT_EQ(clusterPreset(1).numRanks(), 8);
  EXPECT_THROW(clusterPreset(0), TopologyError);
  EXPECT_THROW(clusterPreset(kMaxClusterNodes + 1), TopologyError);
}

} // namespace
} // namespace collplan::test

namespace collplan::test {
namespace {

TEST(TopologyPresets, NodesAreTheMachinesTheDevicesBelongTo) {
  EXPECT_EQ(nvswitchH100Preset().numNodes(), 1);
  EXPECT_EQ(trn2Preset().numNodes(), 1);
  EXPECT_EQ(clusterPreset(4).numNodes(), 4);
  EXPECT_EQ(Topology{}.numNodes(), 1);  // no devices: one machine, as a world without topology
}

}  // namespace
}  // namespace collplan::test
