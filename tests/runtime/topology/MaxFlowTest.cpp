// MaxFlow (runtime/topology/MaxFlow.h): flows and cuts checked by hand, re-runs with changed
// capacities, and bad edges refused.
#include "runtime/topology/MaxFlow.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace collplan;

namespace {

// The network of CLRS figure 26.1: s=0, v1..v4 = 1..4, t=5; max flow 23.
MaxFlow clrsNetwork() {
  MaxFlow g(6);
  g.addEdge(0, 1, 16);
  g.addEdge(0, 2, 13);
  g.addEdge(2, 1, 4);
  g.addEdge(1, 3, 12);
  g.addEdge(3, 2, 9);
  g.addEdge(2, 4, 14);
  g.addEdge(4, 3, 7);
  g.addEdge(3, 5, 20);
  g.addEdge(4, 5, 4);
  return g;
}

TEST(MaxFlow, TextbookNetworkAndItsMinCut) {
  MaxFlow g = clrsNetwork();
  EXPECT_DOUBLE_EQ(g.run(0, 5), 23);
  const std::vector<bool> &side = g.sourceSide();
  // The minimum cut {s, v1, v2, v4} | {v3, t}: edges v1→v3 (12), v4→v3 (7), v4→t (4).
  EXPECT_EQ(side, (std::vector<bool>{true, true, true, false, true, false}));
  EXPECT_DOUBLE_EQ(g.cutCapacity(side), 23);
  // Conservation at every inner vertex, and no edge above its capacity.
  std::vector<double> net(6, 0);
  for (int e = 0; e < g.numEdges(); ++e) {
    EXPECT_LE(g.flow(e), g.capacity(e) + 1e-12);
    net[size_t(g.from(e))] -= g.flow(e);
    net[size_t(g.to(e))] += g.flow(e);
  }
  for (int v = 1; v <= 4; ++v) EXPECT_NEAR(net[size_t(v)], 0, 1e-12);
}

TEST(MaxFlow, RerunsWithChangedCapacitiesFromZero) {
  MaxFlow g = clrsNetwork();
  EXPECT_DOUBLE_EQ(g.run(0, 5), 23);
  g.setCapacity(8, 0);  // v4 → t closed: only v3 → t (20) is left
  EXPECT_DOUBLE_EQ(g.run(0, 5), 19);  // s side can still push 12 + 7 into v3
  g.setCapacity(8, 4);
  EXPECT_DOUBLE_EQ(g.run(0, 5), 23);
  EXPECT_DOUBLE_EQ(g.run(5, 0), 0);  // nothing flows back
  EXPECT_DOUBLE_EQ(g.run(3, 3), 0);
}

TEST(MaxFlow, RealCapacitiesParallelEdgesAndAddedVertices) {
  MaxFlow g(2);
  g.addEdge(0, 1, 0.1);
  g.addEdge(0, 1, 0.2);
  const int mid = g.addVertex();
  g.addEdge(0, mid, 1e9);
  g.addEdge(mid, 1, 0.3);
  EXPECT_NEAR(g.run(0, 1), 0.6, 1e-12);
  EXPECT_EQ(g.numVertices(), 3);
  EXPECT_EQ(g.numEdges(), 4);
}

TEST(MaxFlow, BadEdgesAndVerticesAreRefused) {
  MaxFlow g(2);
  auto message = [](auto &&call) {
    try {
      call();
    } catch (const std::invalid_argument &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { g.addEdge(0, 2, 1); }), "MaxFlow: edge head 2 is not a vertex (0..1)");
  EXPECT_EQ(message([&] { g.addEdge(-1, 1, 1); }), "MaxFlow: edge tail -1 is not a vertex (0..1)");
  EXPECT_EQ(message([&] { g.addEdge(0, 1, -1); }),
            "MaxFlow: capacity must be a finite number >= 0, got -1.000000");
  EXPECT_EQ(message([&] { g.setCapacity(0, 1); }), "MaxFlow: edge 0 does not exist");
  EXPECT_EQ(message([&] { g.run(0, 7); }), "MaxFlow: sink 7 is not a vertex (0..1)");
}

}  // namespace
