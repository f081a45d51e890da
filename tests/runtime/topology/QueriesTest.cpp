// Route queries, the route cache, ring orders that follow the hardware.
#include "TopologyTestUtil.h"

#include "runtime/topology/Generators.h"
#include "runtime/topology/Presets.h"
#include "runtime/topology/Queries.h"
#include "runtime/topology/Routing.h"

#include <set>

namespace collplan::test {
namespace {

using nlohmann::json;

/// Three devices in a triangle: the direct a–b link is slow (10 us), the way through c is 2 us.
Topology triangle() {
  json document = {{"format_version", 1},
                   {"name", "triangle"},
                   {"ranks", 3},
                   {"devices",
                    {{{"name", "a"}, {"ranks", {0}}, {"mem_bandwidth_gbps", 100}},
                     {{"name", "b"}, {"ranks", {1}}, {"mem_bandwidth_gbps", 100}},
                     {{"name", "c"}, {"ranks", {2}}, {"mem_bandwidth_gbps", 100}}}},
                   {"links",
                    {{{"a", "a"}, {"b", "b"}, {"bandwidth_gbps", 100}, {"latency_us", 10}},
                     {{"a", "a"}, {"b", "c"}, {"bandwidth_gbps", 20}, {"latency_us", 1}},
                     {{"a", "b"}, {"b", "c"}, {"bandwidth_gbps", 30}, {"latency_us", 1}}}},
                   {"routing", "shortest_path"},
                   {"intra_device", {{"bandwidth_gbps", 50}, {"latency_us", 0.5}}}};
  return topologyFromJson(document, "triangle");
}

TEST(TopologyQueries, ShortestPathIsWeightedByLatency) {
  Topology topo = triangle();
  EXPECT_EQ(routeLinks(topo, 0, 1), (std::vector<int>{1, 2}));
  EXPECT_EQ(hopCount(topo, 0, 1), 2);
  EXPECT_DOUBLE_EQ(routeLatencyUs(topo, 0, 1), 2.0);
  EXPECT_DOUBLE_EQ(routeBandwidthGBps(topo, 0, 1), 20.0);
  std::vector<Hop> back = topo.route(1, 0);
  EXPECT_EQ(back, (std::vector<Hop>{{2, false}, {1, true}}));
  EXPECT_DOUBLE_EQ(routeLatencyUs(topo, 0, 0), 0.5); // intra-device
  EXPECT_DOUBLE_EQ(routeBandwidthGBps(topo, 2, 2), 50.0);
}

TEST(TopologyQueries, DeviceAndRanks) {
  Topology topo = torus2d(4, 4, 4);
  for (int rank = 0; rank < 64; ++rank)
    EXPECT_EQ(topo.deviceOf(rank), rank / 4);
  EXPECT_EQ(topo.ranksOf(15), (std::vector<int>{60, 61, 62, 63}));
  EXPECT_EQ(deviceAt(topo, {3, 2}), 14);
  EXPECT_FALSE(deviceAt(topo, {4, 0}));
  EXPECT_THROW(neighbourAlong(topo, 0, 2, +1), TopologyError);
}

TEST(TopologyQueries, RouteTableAgreesWithRoute) {
  for (const Topology &topo : {fatTree(2, 4, 4), trn2Preset(), pcieSwitchTree(20)}) {
    RouteTable table(topo);
    for (int a = 0; a < topo.numRanks(); ++a)
      for (int b = 0; b < topo.numRanks(); ++b)
        ASSERT_EQ(table.route(a, b), topo.route(a, b)) << topo.name << " " << a << "→" << b;
  }
}

TEST(TopologyQueries, RoutesAreConnectedPaths) {
  for (const Topology &topo : {fatTree(3, 4, 2), hypercube(4), line(5), pcieSwitchTree(12)}) {
    for (int a = 0; a < topo.numRanks(); ++a)
      for (int b = 0; b < topo.numRanks(); ++b) {
        VertexId at = topo.deviceOf(a);
        for (const Hop &hop : topo.route(a, b)) {
          const Link &link = topo.links[hop.link];
          ASSERT_EQ(hop.reverse ? link.b : link.a, at);
          at = hop.reverse ? link.a : link.b;
        }
        ASSERT_EQ(at, topo.deviceOf(b));
      }
  }
}

/// Checks ringOrder's contract: a permutation of the ranks, each device's ranks consecutive.
void expectRingOrder(const Topology &topo, const std::vector<int> &order) {
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> all(topo.numRanks());
  for (int r = 0; r < topo.numRanks(); ++r)
    all[r] = r;
  ASSERT_EQ(sorted, all);
  std::set<int> finished;
  for (size_t i = 0; i < order.size(); ++i) {
    int device = topo.deviceOf(order[i]);
    EXPECT_FALSE(finished.count(device)) << "ranks of device " << device << " are split";
    if (i + 1 < order.size() && topo.deviceOf(order[i + 1]) != device) finished.insert(device);
  }
}

/// Consecutive devices of the ring order (cyclically when `closed`) are directly linked.
void expectDevicesAdjacent(const Topology &topo, const std::vector<int> &order, bool closed) {
  std::vector<int> devices;
  for (int rank : order)
    if (devices.empty() || devices.back() != topo.deviceOf(rank))
      devices.push_back(topo.deviceOf(rank));
  for (size_t i = 0; i + 1 < devices.size() + (closed ? 1 : 0); ++i)
    EXPECT_GE(directLink(topo, devices[i], devices[(i + 1) % devices.size()]), 0)
        << topo.name << ": devices " << devices[i] << " and " << devices[(i + 1) % devices.size()];
}

TEST(TopologyQueries, RingOrderFollowsTorus) {
  Topology topo = trn2Preset();
  std::vector<int> order = ringOrder(topo);
  expectRingOrder(topo, order);
  expectDevicesAdjacent(topo, order, true);
}

TEST(TopologyQueries, RingOrderFollowsRingHypercubeAndFullMesh) {
  for (const Topology &topo : {ring(8), hypercube(4), fullyConnected(5), torus2d(3, 5, 2)}) {
    std::vector<int> order = ringOrder(topo);
    expectRingOrder(topo, order);
    expectDevicesAdjacent(topo, order, true);
  }
  EXPECT_EQ(ringOrder(ring(5)), (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(TopologyQueries, RingOrderOnMeshIsASnake) {
  // A 3 x 3 mesh has no Hamiltonian cycle (odd bipartite graph): the order snakes instead.
  Topology mesh = torus2d(3, 3, 2);
  mesh.wrap = false;
  std::vector<Link> kept;
  for (const Link &link : mesh.links) {
    int dim = link.dim;
    if (std::abs(mesh.devices[link.a].coords[dim] - mesh.devices[link.b].coords[dim]) == 1)
      kept.push_back(link);
  }
  mesh.links = kept;
  mesh.finalize();
  EXPECT_TRUE(hamiltonianCycles(mesh, 1).empty());
  std::vector<int> order = ringOrder(mesh);
  expectRingOrder(mesh, order);
  expectDevicesAdjacent(mesh, order, false);
  std::vector<int> lineOrder = ringOrder(line(6));
  EXPECT_EQ(lineOrder, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(TopologyQueries, RingOrderOnSwitchedSystemsGroupsNodes) {
  Topology topo = fatTree(4, 8, 8);
  std::vector<int> order = ringOrder(topo);
  expectRingOrder(topo, order);
  for (size_t i = 0; i + 1 < order.size(); ++i)
    EXPECT_LE(topo.nodeOf(order[i]), topo.nodeOf(order[i + 1]));
  expectRingOrder(pcie7Preset(), ringOrder(pcie7Preset()));
}

} // namespace
} // namespace collplan::test
