// Questions the compiler, simulator and tuner ask of a topology: positions, routes, rings.
#include "runtime/topology/Queries.h"

#include "runtime/topology/TopologyError.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace collplan {
namespace {

std::string origin(const Topology &topo) { return "topology '" + topo.name + "'"; }

/// Positions of a mesh from dimension `dim` on, in snake (reflected mixed-radix) order:
/// consecutive positions differ by one step in one coordinate, so a mesh without wrap-around
/// still gets a chain of adjacent devices.
std::vector<std::vector<int>> snakeOrder(const std::vector<int> &dims, size_t dim) {
  if (dim == dims.size()) return {{}};
  std::vector<std::vector<int>> inner = snakeOrder(dims, dim + 1), out;
  for (int value = 0; value < dims[dim]; ++value) {
    // Every other block runs backwards, so each block starts where the previous one ended.
    if (value % 2 == 1) std::reverse(inner.begin(), inner.end());
    for (const std::vector<int> &rest : inner) {
      out.push_back({value});
      out.back().insert(out.back().end(), rest.begin(), rest.end());
    }
    if (value % 2 == 1) std::reverse(inner.begin(), inner.end());
  }
  return out;
}

} // namespace

std::optional<int> deviceAt(const Topology &topo, const std::vector<int> &coords) {
  if (coords.size() != topo.dims.size() || coords.empty()) return std::nullopt;
  long long index = 0;
  for (size_t k = 0; k < coords.size(); ++k) {
    if (coords[k] < 0 || coords[k] >= topo.dims[k]) return std::nullopt;
    index = index * topo.dims[k] + coords[k];
  }
  // Generators place devices in mixed-radix order (last coordinate fastest); files may not.
  if (index < (long long)topo.devices.size() && topo.devices[index].coords == coords)
    return int(index);
  for (size_t d = 0; d < topo.devices.size(); ++d)
    if (topo.devices[d].coords == coords) return int(d);
  return std::nullopt;
}

std::optional<int> neighbourAlong(const Topology &topo, int device, int dim, int direction) {
  if (dim < 0 || dim >= int(topo.dims.size()))
    throw TopologyError(origin(topo), "dims",
                        "has no dimension " + std::to_string(dim) + " (it has " +
                            std::to_string(topo.dims.size()) + ")");
  if (device < 0 || device >= int(topo.devices.size()))
    throw TopologyError(origin(topo), "devices",
                        "device " + std::to_string(device) + " does not exist");
  std::vector<int> coords = topo.devices[device].coords;
  if (coords.size() != topo.dims.size())
    throw TopologyError(origin(topo), "devices[" + std::to_string(device) + "].coords",
                        "the device has no position along the topology's dims");
  int extent = topo.dims[dim];
  int next = coords[dim] + (direction < 0 ? -1 : +1);
  if (next < 0 || next >= extent) {
    if (!topo.wrap) return std::nullopt;
    next = (next + extent) % extent;
  }
  coords[dim] = next;
  return deviceAt(topo, coords);
}

int directLink(const Topology &topo, int a, int b, int dim) {
  int any = -1;
  for (int l = 0; l < int(topo.links.size()); ++l) {
    const Link &link = topo.links[l];
    if (!((link.a == a && link.b == b) || (link.a == b && link.b == a))) continue;
    if (dim < 0 || link.dim == dim) return l;
    if (any < 0) any = l;
  }
  return any;
}

std::vector<int> routeLinks(const Topology &topo, int from, int to) {
  std::vector<int> links;
  for (const Hop &hop : topo.route(from, to))
    links.push_back(hop.link);
  return links;
}

int hopCount(const Topology &topo, int from, int to) { return int(topo.route(from, to).size()); }

double routeLatencyUs(const Topology &topo, int from, int to) {
  std::vector<Hop> hops = topo.route(from, to);
  if (hops.empty()) return topo.intraDeviceLatencyUs;
  double total = 0;
  for (const Hop &hop : hops)
    total += topo.links[hop.link].latencyUs;
  return total;
}

double routeBandwidthGBps(const Topology &topo, int from, int to) {
  std::vector<Hop> hops = topo.route(from, to);
  if (hops.empty()) return topo.intraDeviceBandwidthGBps;
  double narrowest = std::numeric_limits<double>::infinity();
  for (const Hop &hop : hops)
    narrowest = std::min(narrowest, topo.links[hop.link].bandwidthGBps);
  return narrowest;
}

std::vector<int> cycleLinks(const Topology &topo, const std::vector<int> &deviceCycle) {
  std::vector<int> links;
  if (deviceCycle.size() < 2) return links;
  for (size_t i = 0; i < deviceCycle.size(); ++i) {
    int a = deviceCycle[i], b = deviceCycle[(i + 1) % deviceCycle.size()];
    int link = directLink(topo, a, b);
    if (link < 0)
      throw TopologyError(origin(topo), "links",
                          "devices " + std::to_string(a) + " and " + std::to_string(b) +
                              " are consecutive in the cycle but not directly linked");
    links.push_back(link);
  }
  return links;
}

std::vector<int> ranksInDeviceOrder(const Topology &topo, const std::vector<int> &deviceOrder) {
  std::vector<int> order;
  for (int device : deviceOrder)
    for (int rank : topo.ranksOf(device))
      order.push_back(rank);
  return order;
}

std::vector<int> ringOrder(const Topology &topo) {
  std::vector<int> deviceOrder;
  std::vector<std::vector<int>> cycles = hamiltonianCycles(topo, 1);
  if (!cycles.empty()) {
    deviceOrder = cycles.front();
  } else if (!topo.dims.empty()) {
    for (const std::vector<int> &coords : snakeOrder(topo.dims, 0))
      if (std::optional<int> device = deviceAt(topo, coords)) deviceOrder.push_back(*device);
  } else {
    for (int d = 0; d < int(topo.devices.size()); ++d)
      deviceOrder.push_back(d);
    std::stable_sort(deviceOrder.begin(), deviceOrder.end(),
                     [&](int x, int y) { return topo.devices[x].node < topo.devices[y].node; });
  }
  return ranksInDeviceOrder(topo, deviceOrder);
}

} // namespace collplan
