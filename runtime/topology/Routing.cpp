// Route computation: latency-weighted shortest paths, dimension-order routes, a route cache.
#include "runtime/topology/Routing.h"

#include "runtime/topology/Queries.h"
#include "runtime/topology/TopologyError.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <queue>
#include <tuple>

namespace collplan {
namespace {

std::string origin(const Topology &topo) { return "topology '" + topo.name + "'"; }

/// Single-source shortest paths: for each vertex, the link it was reached by (-1: none).
struct PathTree {
  int source = 0;
  std::vector<double> latency;
  std::vector<int> hops;
  std::vector<int> viaLink;
};

/// For each vertex, (link, other end) pairs in link index order.
using Adjacency = std::vector<std::vector<std::pair<int, int>>>;

Adjacency adjacencyOf(const Topology &topo) {
  Adjacency adjacent(topo.numVertices());
  for (int l = 0; l < int(topo.links.size()); ++l) {
    adjacent[topo.links[l].a].push_back({l, topo.links[l].b});
    adjacent[topo.links[l].b].push_back({l, topo.links[l].a});
  }
  return adjacent;
}

PathTree shortestPathTree(const Topology &topo, const Adjacency &adjacent, VertexId source) {
  int numVertices = topo.numVertices();
  PathTree tree;
  tree.source = source;
  tree.latency.assign(numVertices, std::numeric_limits<double>::infinity());
  tree.hops.assign(numVertices, std::numeric_limits<int>::max());
  tree.viaLink.assign(numVertices, -1);
  using Entry = std::tuple<double, int, int>; // latency, hops, vertex
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  tree.latency[source] = 0;
  tree.hops[source] = 0;
  queue.push({0.0, 0, source});
  while (!queue.empty()) {
    auto [latency, hops, v] = queue.top();
    queue.pop();
    if (latency != tree.latency[v] || hops != tree.hops[v]) continue;
    for (auto [l, w] : adjacent[v]) {
      double nextLatency = latency + topo.links[l].latencyUs;
      int nextHops = hops + 1;
      if (nextLatency < tree.latency[w] ||
          (nextLatency == tree.latency[w] && nextHops < tree.hops[w])) {
        tree.latency[w] = nextLatency;
        tree.hops[w] = nextHops;
        tree.viaLink[w] = l;
        queue.push({nextLatency, nextHops, w});
      }
    }
  }
  return tree;
}

std::vector<Hop> pathTo(const Topology &topo, const PathTree &tree, VertexId to) {
  if (to == tree.source) return {};
  if (tree.viaLink[to] < 0)
    throw TopologyError(origin(topo), "links",
                        "no route from vertex " + std::to_string(tree.source) + " to vertex " +
                            std::to_string(to));
  std::vector<Hop> hops;
  for (VertexId v = to; v != tree.source;) {
    const Link &link = topo.links[tree.viaLink[v]];
    VertexId previous = link.a == v ? link.b : link.a;
    hops.push_back(Hop{tree.viaLink[v], previous == link.b});
    v = previous;
  }
  std::reverse(hops.begin(), hops.end());
  return hops;
}

} // namespace

std::vector<Hop> shortestRoute(const Topology &topo, VertexId from, VertexId to) {
  if (from < 0 || from >= topo.numVertices() || to < 0 || to >= topo.numVertices())
    throw TopologyError(origin(topo), "", "route between vertices that do not exist");
  return pathTo(topo, shortestPathTree(topo, adjacencyOf(topo), from), to);
}

std::vector<Hop> dimensionOrderRoute(const Topology &topo, int fromDevice, int toDevice) {
  std::vector<Hop> hops;
  int current = fromDevice;
  const std::vector<int> &target = topo.devices.at(toDevice).coords;
  for (int dim = 0; dim < int(topo.dims.size()); ++dim) {
    int extent = topo.dims[dim];
    while (topo.devices[current].coords[dim] != target[dim]) {
      int here = topo.devices[current].coords[dim];
      int forward = ((target[dim] - here) % extent + extent) % extent;
      int direction =
          topo.wrap ? (forward <= extent - forward ? +1 : -1) : (target[dim] > here ? +1 : -1);
      std::optional<int> next = neighbourAlong(topo, current, dim, direction);
      int link = next ? directLink(topo, current, *next, dim) : -1;
      if (link < 0)
        throw TopologyError(origin(topo), "links",
                            "dimension-order route from device '" + topo.devices[fromDevice].name +
                                "' to '" + topo.devices[toDevice].name +
                                "' is missing a link along dim " + std::to_string(dim) + " at '" +
                                topo.devices[current].name + "'");
      hops.push_back(Hop{link, topo.links[link].a != current});
      current = *next;
    }
  }
  return hops;
}

std::vector<Hop> Topology::route(int from, int to) const {
  int fromDevice = deviceOf(from), toDevice = deviceOf(to);
  if (fromDevice == toDevice) return {};
  if (routing == Routing::DimensionOrder) return dimensionOrderRoute(*this, fromDevice, toDevice);
  return shortestRoute(*this, fromDevice, toDevice);
}

struct RouteTable::Cache {
  Adjacency adjacent;
  std::unordered_map<uint64_t, std::vector<Hop>> routes;  ///< by (source, target) device
  std::optional<PathTree> lastTree;                       ///< of the last source device
};

RouteTable::RouteTable(const Topology &topo)
    : topo_(topo), cache_(new Cache{adjacencyOf(topo), {}, std::nullopt}) {}
RouteTable::~RouteTable() = default;

const std::vector<Hop> &RouteTable::route(int from, int to) {
  const int fromDevice = topo_.deviceOf(from), toDevice = topo_.deviceOf(to);
  const uint64_t key = uint64_t(uint32_t(fromDevice)) << 32 | uint32_t(toDevice);
  auto known = cache_->routes.find(key);
  if (known != cache_->routes.end()) return known->second;
  std::vector<Hop> hops;
  if (fromDevice == toDevice) {
    // no hops
  } else if (topo_.routing == Routing::DimensionOrder) {
    hops = dimensionOrderRoute(topo_, fromDevice, toDevice);
  } else {
    if (!cache_->lastTree || cache_->lastTree->source != fromDevice)
      cache_->lastTree = shortestPathTree(topo_, cache_->adjacent, fromDevice);
    hops = pathTo(topo_, *cache_->lastTree, toDevice);
  }
  return cache_->routes.emplace(key, std::move(hops)).first->second;
}

} // namespace collplan
