// Hamiltonian cycles over devices: each visits every device once along links; pairs are
// link-disjoint (two for a 4x4 torus).
#include "TopologyTestUtil.h"

#include "runtime/topology/Generators.h"
#include "runtime/topology/Queries.h"

#include <set>

namespace collplan::test {
namespace {

/// Every device once, consecutive devices (and last → first) directly linked.
void expectHamiltonian(const Topology &topo, const std::vector<int> &cycle) {
  ASSERT_EQ(cycle.size(), topo.devices.size());
  std::set<int> seen(cycle.begin(), cycle.end());
  EXPECT_EQ(seen.size(), cycle.size()) << "a device is visited twice";
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), int(cycle.size()) - 1);
  std::vector<int> links = cycleLinks(topo, cycle);
  EXPECT_EQ(links.size(), cycle.size());
}

void expectDisjoint(const Topology &topo, const std::vector<std::vector<int>> &cycles) {
  std::set<int> used;
  for (const std::vector<int> &cycle : cycles)
    for (int link : cycleLinks(topo, cycle))
      EXPECT_TRUE(used.insert(link).second) << "link " << link;
}

TEST(TopologyHamiltonian, TwoLinkDisjointCyclesOn4x4Torus) {
  Topology topo = torus2d(4, 4, 4);
  std::vector<std::vector<int>> cycles = hamiltonianCycles(topo, 2);
  ASSERT_EQ(cycles.size(), 2u);
  for (const std::vector<int> &cycle : cycles)
    expectHamiltonian(topo, cycle);
  expectDisjoint(topo, cycles);
  // 2 x 16 links: together the two cycles use every link of the torus once.
  std::set<int> all;
  for (const std::vector<int> &cycle : cycles)
    for (int link : cycleLinks(topo, cycle))
      all.insert(link);
  EXPECT_EQ(all.size(), topo.links.size());
}

TEST(TopologyHamiltonian, SquareToriOfOtherSizes) {
  for (int k : {3, 5, 6, 8}) {
    Topology topo = torus2d(k, k, 1);
    std::vector<std::vector<int>> cycles = hamiltonianCycles(topo, 2);
    ASSERT_EQ(cycles.size(), 2u) << k;
    for (const std::vector<int> &cycle : cycles)
      expectHamiltonian(topo, cycle);
    expectDisjoint(topo, cycles);
  }
}

TEST(TopologyHamiltonian, RectangularTorusAndHypercubeBySearch) {
  for (const Topology &topo :
       {torus2d(4, 6, 1), torus2d(2, 4, 1), hypercube(4), ring(7), fullyConnected(7)}) {
    std::vector<std::vector<int>> cycles = hamiltonianCycles(topo, 2);
    ASSERT_GE(cycles.size(), 1u) << topo.name;
    for (const std::vector<int> &cycle : cycles)
      expectHamiltonian(topo, cycle);
    expectDisjoint(topo, cycles);
  }
  EXPECT_EQ(hamiltonianCycles(fullyConnected(7), 3).size(), 3u); // K7 splits into 3 cycles
}

TEST(TopologyHamiltonian, NoneWithoutDirectDeviceLinks) {
  EXPECT_TRUE(hamiltonianCycles(switchTopology(4), 2).empty());
  EXPECT_TRUE(hamiltonianCycles(line(4), 1).empty());
  EXPECT_EQ(hamiltonianCycles(ring(1), 2), (std::vector<std::vector<int>>{{0}}));
}

TEST(TopologyHamiltonian, CycleLinksRejectsNonAdjacentDevices) {
  Topology topo = ring(6);
  EXPECT_THROW(cycleLinks(topo, {0, 2, 1, 3, 4, 5}), TopologyError);
}

} // namespace
} // namespace collplan::test
