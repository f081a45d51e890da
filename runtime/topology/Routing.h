// Route computation: latency-weighted shortest paths, dimension-order routes, a route cache.
#pragma once

#include "runtime/topology/Topology.h"

#include <memory>
#include <vector>

namespace collplan {

/// Shortest path between two vertices, weighted by link latency with ties broken by fewer hops
/// and then by lower link index (so every process computes the same route). Devices forward
/// traffic like switches. Throws TopologyError when `to` cannot be reached.
std::vector<Hop> shortestRoute(const Topology &topo, VertexId from, VertexId to);

/// Dimension-order route between two devices of a torus/mesh/hypercube: dimension 0 first, each
/// dimension the shorter way round (ties go in the + direction). Throws TopologyError when a
/// needed link is missing.
std::vector<Hop> dimensionOrderRoute(const Topology &topo, int fromDevice, int toDevice);

/// Routes between ranks for callers that ask for many (simulator, cost analysis): each route
/// between two devices is computed once and kept, from the shortest-path tree of its source
/// device; the tree of the last source asked for is kept too, so asking source by source builds
/// each tree once (memory: the routes, not a tree per source). Holds a reference to `topo`,
/// which must outlive it and stay unchanged. Not thread-safe.
class RouteTable {
public:
  explicit RouteTable(const Topology &topo);
  ~RouteTable();
  /// Same result as `topo.route(from, to)`.
  const std::vector<Hop> &route(int from, int to);
  const Topology &topology() const { return topo_; }

private:
  struct Cache;
  const Topology &topo_;
  std::unique_ptr<Cache> cache_;
};

} // namespace collplan
