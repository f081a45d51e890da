// Generators: rank, device, switch and link counts, coordinates, routes, argument errors.
#include "TopologyTestUtil.h"

#include "runtime/topology/Generators.h"
#include "runtime/topology/Queries.h"

#include <bitset>

namespace collplan::test {
namespace {

int degree(const Topology &topo, int vertex) {
  int count = 0;
  for (const Link &link : topo.links)
    count += (link.a == vertex) + (link.b == vertex);
  return count;
}

TEST(TopologyGenerators, Ring) {
  Topology topo = ring(8);
  expectWellFormed(topo);
  EXPECT_EQ(topo.numRanks(), 8);
  EXPECT_EQ(topo.devices.size(), 8u);
  EXPECT_EQ(topo.links.size(), 8u);
  for (int d = 0; d < 8; ++d)
    EXPECT_EQ(degree(topo, d), 2);
  EXPECT_EQ(hopCount(topo, 0, 4), 4);
  EXPECT_EQ(hopCount(topo, 0, 7), 1); // the wrap-around link
  EXPECT_EQ(topo.neighbours(0, 0), (std::vector<int>{7, 1}));
  EXPECT_EQ(ring(2).links.size(), 1u);
  EXPECT_EQ(ring(1).links.size(), 0u);
}

TEST(TopologyGenerators, Line) {
  Topology topo = line(8);
  expectWellFormed(topo);
  EXPECT_EQ(topo.links.size(), 7u);
  EXPECT_FALSE(topo.wrap);
  EXPECT_EQ(hopCount(topo, 0, 7), 7);
  EXPECT_EQ(topo.neighbours(0, 0), (std::vector<int>{1}));
  EXPECT_FALSE(neighbourAlong(topo, 7, 0, +1));
}

TEST(TopologyGenerators, Switch) {
  Topology topo = switchTopology(8);
  expectWellFormed(topo);
  EXPECT_EQ(topo.devices.size(), 8u);
  EXPECT_EQ(topo.switches.size(), 1u);
  EXPECT_EQ(topo.links.size(), 8u);
  std::vector<Hop> hops = topo.route(2, 5);
  ASSERT_EQ(hops.size(), 2u);
  EXPECT_EQ(hops[0], (Hop{2, false})); // d2 → switch: crossed a → b
  EXPECT_EQ(hops[1], (Hop{5, true}));  // switch → d5: crossed b → a
}

TEST(TopologyGenerators, FullyConnected) {
  Topology topo = fullyConnected(6);
  expectWellFormed(topo);
  EXPECT_EQ(topo.links.size(), 15u);
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b)
      EXPECT_EQ(hopCount(topo, a, b), a == b ? 0 : 1);
}

TEST(TopologyGenerators, Hypercube) {
  Topology topo = hypercube(3);
  expectWellFormed(topo);
  EXPECT_EQ(topo.numRanks(), 8);
  EXPECT_EQ(topo.links.size(), 12u);
  EXPECT_EQ(topo.dims, (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(topo.routing, Routing::DimensionOrder);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      EXPECT_EQ(hopCount(topo, a, b), int(std::bitset<3>(a ^ b).count()));
  // Dimension order: 0b000 → 0b111 crosses dimension 0, then 1, then 2.
  std::vector<Hop> hops = topo.route(0, 7);
  ASSERT_EQ(hops.size(), 3u);
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(topo.links[hops[k].link].dim, k);
  for (int d = 0; d < 8; ++d)
    for (int dim = 0; dim < 3; ++dim)
      EXPECT_EQ(topo.neighbours(d, dim), (std::vector<int>{d ^ (4 >> dim)}));
  EXPECT_EQ(hypercube(0).numRanks(), 1);
}

TEST(TopologyGenerators, Torus4x4With4RanksPerChip) {
  Topology topo = torus2d(4, 4, 4);
  expectWellFormed(topo);
  EXPECT_EQ(topo.numRanks(), 64);
  EXPECT_EQ(topo.devices.size(), 16u);
  EXPECT_EQ(topo.links.size(), 32u);
  for (int d = 0; d < 16; ++d)
    EXPECT_EQ(degree(topo, d), 4);
  EXPECT_EQ(topo.deviceOf(5), 1);
  EXPECT_EQ(topo.ranksOf(1), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(topo.devices[6].coords, (std::vector<int>{1, 2}));
  EXPECT_EQ(topo.routing, Routing::DimensionOrder);
  int longest = 0;
  for (int a = 0; a < 64; ++a)
    for (int b = 0; b < 64; ++b)
      longest = std::max(longest, hopCount(topo, a, b));
  EXPECT_EQ(longest, 4);                      // 2 + 2 with wrap-around
  EXPECT_EQ(hopCount(topo, 0, 3 * 4 * 4), 1); // chip (0,0) → chip (3,0) wraps
  EXPECT_EQ(hopCount(topo, 0, 1), 0);         // same chip
  // Dimension order: chip (0,0) → chip (2,1) goes along dim 0 twice, then dim 1 once.
  std::vector<Hop> hops = topo.route(0, 9 * 4);
  ASSERT_EQ(hops.size(), 3u);
  EXPECT_EQ(topo.links[hops[0].link].dim, 0);
  EXPECT_EQ(topo.links[hops[1].link].dim, 0);
  EXPECT_EQ(topo.links[hops[2].link].dim, 1);
  EXPECT_EQ(topo.neighbours(0, 0), (std::vector<int>{12, 4}));
  EXPECT_EQ(topo.neighbours(0, 1), (std::vector<int>{3, 1}));
}

TEST(TopologyGenerators, TorusWithExtentTwoHasOneLinkPerPair) {
  Topology topo = torus2d(2, 3, 1);
  expectWellFormed(topo);
  EXPECT_EQ(topo.links.size(), 3u + 6u); // dim 0: 3 pairs; dim 1: two rings of 3
}

TEST(TopologyGenerators, PcieTree) {
  Topology single = pcieSwitchTree(7);
  expectWellFormed(single);
  EXPECT_EQ(single.switches.size(), 1u);
  EXPECT_EQ(single.links.size(), 7u);
  PcieTreeParams params;
  params.devicesPerSwitch = 8;
  Topology tree = pcieSwitchTree(20, params);
  expectWellFormed(tree);
  EXPECT_EQ(tree.switches.size(), 4u); // 3 leaves + root
  EXPECT_EQ(tree.links.size(), 20u + 3u);
  EXPECT_EQ(hopCount(tree, 0, 7), 2);
  EXPECT_EQ(hopCount(tree, 0, 19), 4);
}

TEST(TopologyGenerators, FatTree) {
  Topology topo = fatTree(4, 8, 8);
  expectWellFormed(topo);
  EXPECT_EQ(topo.numRanks(), 32);
  // 4 NVSwitches + 32 NICs + 8 rail leaves + 8 spines.
  EXPECT_EQ(topo.switches.size(), 52u);
  EXPECT_EQ(topo.links.size(), 4u * (8 + 8 + 8) + 8u * 8);
  EXPECT_EQ(topo.nodeOf(31), 3);
  EXPECT_EQ(hopCount(topo, 0, 7), 2);  // through the node's NVSwitch
  EXPECT_EQ(hopCount(topo, 3, 11), 4); // GPU 3 → NIC 3 → rail-3 leaf → NIC 3 → GPU 3
  std::vector<Hop> hops = topo.route(3, 11);
  int leaf = topo.links[hops[1].link].b - int(topo.devices.size());
  EXPECT_EQ(topo.switches[leaf].kind, "leaf");
  EXPECT_EQ(topo.switches[leaf].name, "leaf0.rail3");
  EXPECT_GT(hopCount(topo, 0, 9), 0); // cross-rail, cross-node still routes
}

TEST(TopologyGenerators, FatTreeSharedNicsAndManyLeaves) {
  FatTreeParams params;
  params.nodesPerLeaf = 2;
  Topology topo = fatTree(5, 4, 2, params);
  expectWellFormed(topo);
  EXPECT_EQ(topo.numRanks(), 20);
  // 3 groups x 2 rails = 6 leaves; each leaf to each of 8 spines.
  int leaves = 0, nics = 0;
  for (const Switch &sw : topo.switches)
    leaves += sw.kind == "leaf", nics += sw.kind == "nic";
  EXPECT_EQ(leaves, 6);
  EXPECT_EQ(nics, 10);
  EXPECT_EQ(hopCount(topo, 0, 19), 6); // GPU → NIC → leaf → spine → leaf → NIC → GPU
  EXPECT_EQ(fatTree(1, 8, 0).numRanks(), 8);
}

/// hypercube:20 (a million ranks) ran for more than 300 s before anything failed: a generator
/// refuses more ranks than a plan may have, at once; at the limit, validating the dimension
/// order links is linear in the links (it scanned every link per device and dimension).
TEST(TopologyGenerators, RankCountsAreBoundedAndLargeOnesAreBuiltInLinearTime) {
  try {
    hypercube(20);
    FAIL() << "built";
  } catch (const TopologyError &error) {
    EXPECT_NE(std::string(error.what()).find("dims must be at most 16, got 20"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(ring(65537), TopologyError);
  EXPECT_EQ(hypercube(16).numRanks(), 65536);
  EXPECT_EQ(torus2d(256, 256, 1).numRanks(), 65536);
}

TEST(TopologyGenerators, BadArgumentsAreErrors) {
  EXPECT_THROW(ring(0), TopologyError);
  EXPECT_THROW(line(-1), TopologyError);
  EXPECT_THROW(torus2d(4, 0, 4), TopologyError);
  EXPECT_THROW(torus2d(4, 4, 0), TopologyError);
  EXPECT_THROW(hypercube(-1), TopologyError);
  EXPECT_THROW(fatTree(2, 8, 3), TopologyError);
  EXPECT_THROW(fatTree(2, 8, 0), TopologyError);
  EXPECT_THROW(ring(1 << 22), TopologyError);
  GeneratorParams badLink;
  badLink.link.bandwidthGBps = 0;
  try {
    ring(4, badLink);
    FAIL();
  } catch (const TopologyError &error) {
    EXPECT_EQ(error.field(), "links[0].bandwidth_gbps");
    EXPECT_NE(std::string(error.what()).find("ring(4)"), std::string::npos);
  }
}

/// Two machines of two devices (sockets) each, ranks placed round-robin as mpirun's
/// --map-by node would: the nodes hold the ranks they were given, routes between nodes cross
/// the network switch, and the placement is part of the fingerprint.
TEST(TopologyGenerators, MultiNodeKeepsThePlacement) {
  const Topology machine = line(2);  // two devices, ranks 0 and 1
  const Topology topo =
      multiNode({machine, machine}, {{0, 2}, {1, 3}}, LinkSpec{12.5, 2.0, true});
  expectWellFormed(topo);
  EXPECT_EQ(topo.numRanks(), 4);
  EXPECT_EQ(topo.devices.size(), 4u);
  ASSERT_EQ(topo.switches.size(), 1u);
  EXPECT_EQ(topo.switches[0].name, "network");
  EXPECT_EQ(topo.links.size(), 4u);  // one inside each machine, one per node to the switch
  for (int r = 0; r < 4; ++r) EXPECT_EQ(topo.nodeOf(r), r % 2) << "rank " << r;
  EXPECT_EQ(topo.devices[1].name, "n0.d1");
  EXPECT_EQ(topo.devices[1].ranks, (std::vector<int>{2}));
  EXPECT_EQ(hopCount(topo, 0, 2), 1);  // inside node 0
  EXPECT_EQ(hopCount(topo, 0, 1), 2);  // node 0 -> network -> node 1
  const Topology byBlocks =
      multiNode({machine, machine}, {{0, 1}, {2, 3}}, LinkSpec{12.5, 2.0, true});
  EXPECT_NE(topo.fingerprint(), byBlocks.fingerprint());
  EXPECT_TRUE(multiNode({machine}, {{0, 1}}, LinkSpec{}).switches.empty());
}

TEST(TopologyGenerators, MultiNodeRefusesABadPlacement) {
  const Topology machine = line(2);
  const LinkSpec net{12.5, 2.0, true};
  auto errorOf = [&](const std::vector<Topology> &machines,
                     const std::vector<std::vector<int>> &ranks) {
    try {
      (void)multiNode(machines, ranks, net);
    } catch (const TopologyError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(errorOf({machine}, {{0, 1}, {2, 3}}).find("one machine per node"), std::string::npos);
  EXPECT_NE(errorOf({}, {}).find("at least one node"), std::string::npos);
  EXPECT_NE(errorOf({machine, machine}, {{0, 1}, {2}}).find("node 1 has 1 ranks but its machine "
                                                             "has 2"),
            std::string::npos);
  EXPECT_NE(errorOf({machine, machine}, {{0, 1}, {1, 2}}).find("each on exactly one node"),
            std::string::npos);
  EXPECT_NE(errorOf({machine, machine}, {{0, 1}, {3, 4}}).find("must be 0..3"),
            std::string::npos);
  EXPECT_NE(errorOf({switchTopology(2)}, {{0, 1}}).find("has switches"), std::string::npos);
}

} // namespace
} // namespace collplan::test
