// Semantic checks of a topology (rank partition, names, bandwidths, coordinates, connectivity).
#include "runtime/topology/Validate.h"

#include "runtime/topology/Queries.h"
#include "runtime/topology/TopologyError.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <unordered_set>

namespace collplan {
namespace {

std::string at(const std::string &array, size_t index) {
  return array + "[" + std::to_string(index) + "]";
}

std::string vertexLabel(const Topology &topo, int vertex) {
  int numDevices = int(topo.devices.size());
  if (vertex < numDevices)
    return "device '" + topo.devices[vertex].name + "' (" + at("devices", vertex) + ")";
  return "switch '" + topo.switches[vertex - numDevices].name + "' (" +
         at("switches", vertex - numDevices) + ")";
}

/// The largest latency (µs) or bandwidth (GB/s) a topology may state: far beyond any machine,
/// and small enough that simulated times stay finite for every message size.
constexpr double kMaxQuantity = 1e12;

std::string numberText(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

/// The smallest bandwidth (GB/s) a topology may state: 1 kB/s. Below it the largest message
/// (2^64 bytes) would take longer than a double's range, and simulated times would be infinite.
constexpr double kMinBandwidth = 1e-6;

void checkPositive(double value, const std::string &origin, const std::string &field) {
  if (!std::isfinite(value) || value <= 0)
    throw TopologyError(origin, field, "must be a positive number, got " + numberText(value));
  if (value < kMinBandwidth)
    throw TopologyError(origin, field, "must be at least 1e-6 (1 kB/s), got " + numberText(value));
  if (value > kMaxQuantity)
    throw TopologyError(origin, field, "must be at most 1e12, got " + numberText(value));
}

void checkNonNegative(double value, const std::string &origin, const std::string &field) {
  if (!std::isfinite(value) || value < 0)
    throw TopologyError(origin, field, "must be a non-negative number, got " + numberText(value));
  if (value > kMaxQuantity)
    throw TopologyError(origin, field, "must be at most 1e12, got " + numberText(value));
}

void checkNames(const Topology &topo, const std::string &origin) {
  std::map<std::string, std::string> seen; // name → field that defined it
  auto check = [&](const std::string &name, const std::string &field) {
    if (name.empty()) throw TopologyError(origin, field + ".name", "must not be empty");
    auto [it, inserted] = seen.emplace(name, field);
    if (!inserted)
      throw TopologyError(origin, field + ".name",
                          "duplicate vertex name '" + name + "' (also " + it->second + ")");
  };
  for (size_t d = 0; d < topo.devices.size(); ++d)
    check(topo.devices[d].name, at("devices", d));
  for (size_t s = 0; s < topo.switches.size(); ++s)
    check(topo.switches[s].name, at("switches", s));
}

/// The far pull tier: a footprint and the per-pull cap beyond it, only on pull transfers.
void checkPullTier(const Topology &topo, const std::string &origin) {
  checkNonNegative(topo.intraDevicePullCacheBytes, origin, "intra_device.pull_cache_bytes");
  if (!(topo.intraDevicePullCacheBytes > 0)) {
    checkNonNegative(topo.intraDevicePullMemoryGBps, origin,
                     "intra_device.pull_memory_bandwidth_gbps");
    if (topo.intraDevicePullMemoryGBps > 0)
      throw TopologyError(origin, "intra_device.pull_memory_bandwidth_gbps",
                          "given, but intra_device.pull_cache_bytes is 0 (the footprint beyond "
                          "which it applies)");
    return;
  }
  if (!topo.intraDevicePull)
    throw TopologyError(origin, "intra_device.pull_cache_bytes",
                        "given, but intra_device.pull is false (the pull tier prices pulls)");
  checkPositive(topo.intraDevicePullMemoryGBps, origin, "intra_device.pull_memory_bandwidth_gbps");
}

void checkDevices(const Topology &topo, const std::string &origin) {
  for (size_t d = 0; d < topo.devices.size(); ++d) {
    const Device &device = topo.devices[d];
    std::string field = at("devices", d);
    if (device.kind.empty()) throw TopologyError(origin, field + ".kind", "must not be empty");
    if (device.node < 0)
      throw TopologyError(origin, field + ".node",
                          "must be a non-negative integer, got " + std::to_string(device.node));
    checkPositive(device.memBandwidthGBps, origin, field + ".mem_bandwidth_gbps");
    checkNonNegative(device.reduceGBps, origin, field + ".reduce_gbps");
    checkNonNegative(device.cacheBytes, origin, field + ".cache_bytes");
    if (device.cacheBytes > 0)
      checkPositive(device.cacheBandwidthGBps, origin, field + ".cache_bandwidth_gbps");
    else
      checkNonNegative(device.cacheBandwidthGBps, origin, field + ".cache_bandwidth_gbps");
    checkNonNegative(device.nearCacheBytes, origin, field + ".near_cache_bytes");
    if (device.nearCacheBytes > 0)
      checkPositive(device.nearCacheBandwidthGBps, origin, field + ".near_cache_bandwidth_gbps");
    else
      checkNonNegative(device.nearCacheBandwidthGBps, origin,
                       field + ".near_cache_bandwidth_gbps");
    if (device.cacheBytes > 0 && device.nearCacheBytes > device.cacheBytes)
      throw TopologyError(origin, field + ".near_cache_bytes",
                          "must not exceed cache_bytes (" + std::to_string(device.cacheBytes) +
                              "): the near cache is the smaller level");
    checkNonNegative(device.opOverheadUs, origin, field + ".op_overhead_us");
    checkNonNegative(device.pullGBps, origin, field + ".pull_bandwidth_gbps");
    checkNonNegative(device.pullMemoryGBps, origin, field + ".pull_memory_bandwidth_gbps");
    if (device.engines < 0)
      throw TopologyError(origin, field + ".engines",
                          "must be >= 0 (0: no device-wide limit), got " +
                              std::to_string(device.engines));
    if (device.enginesPerRank < 0)
      throw TopologyError(origin, field + ".engines_per_rank",
                          "must be >= 0 (0: one engine per channel), got " +
                              std::to_string(device.enginesPerRank));
    if (device.pullMemoryGBps > 0 && !(topo.intraDevicePullCacheBytes > 0))
      throw TopologyError(origin, field + ".pull_memory_bandwidth_gbps",
                          "given, but intra_device.pull_cache_bytes is 0 (the shared pull rate "
                          "beyond the pull tier needs the tier's footprint)");
  }
}

void checkCoords(const Topology &topo, const std::string &origin) {
  long long product = 1;
  for (size_t k = 0; k < topo.dims.size(); ++k) {
    if (topo.dims[k] < 1)
      throw TopologyError(origin, at("dims", k),
                          "must be a positive extent, got " + std::to_string(topo.dims[k]));
    product *= topo.dims[k];
    if (product > (1 << 24)) throw TopologyError(origin, "dims", "has too many positions");
  }
  if (!topo.dims.empty() && product != (long long)topo.devices.size())
    throw TopologyError(origin, "dims",
                        "the product of the extents is " + std::to_string(product) +
                            " but there are " + std::to_string(topo.devices.size()) +
                            " devices; every position must hold one device");
  std::map<std::vector<int>, size_t> seen;
  for (size_t d = 0; d < topo.devices.size(); ++d) {
    const std::vector<int> &coords = topo.devices[d].coords;
    std::string field = at("devices", d) + ".coords";
    if (topo.dims.empty()) {
      if (!coords.empty())
        throw TopologyError(origin, field, "given, but the topology has no `dims`");
      continue;
    }
    if (coords.size() != topo.dims.size())
      throw TopologyError(origin, field,
                          "has " + std::to_string(coords.size()) + " entries but `dims` has " +
                              std::to_string(topo.dims.size()));
    for (size_t k = 0; k < coords.size(); ++k)
      if (coords[k] < 0 || coords[k] >= topo.dims[k])
        throw TopologyError(origin, at(field, k),
                            std::to_string(coords[k]) + " is out of range 0.." +
                                std::to_string(topo.dims[k] - 1));
    auto [it, inserted] = seen.emplace(coords, d);
    if (!inserted)
      throw TopologyError(origin, field, "same position as " + at("devices", it->second));
  }
}

void checkLinks(const Topology &topo, const std::string &origin) {
  int numVertices = topo.numVertices();
  for (size_t l = 0; l < topo.links.size(); ++l) {
    const Link &link = topo.links[l];
    std::string field = at("links", l);
    if (link.a < 0 || link.a >= numVertices)
      throw TopologyError(origin, field + ".a",
                          "vertex " + std::to_string(link.a) + " does not exist");
    if (link.b < 0 || link.b >= numVertices)
      throw TopologyError(origin, field + ".b",
                          "vertex " + std::to_string(link.b) + " does not exist");
    if (link.a == link.b)
      throw TopologyError(origin, field + ".b",
                          "a link must join two different vertices, both ends are " +
                              vertexLabel(topo, link.a));
    checkPositive(link.bandwidthGBps, origin, field + ".bandwidth_gbps");
    checkNonNegative(link.latencyUs, origin, field + ".latency_us");
    if (link.dim < -1 || link.dim >= int(topo.dims.size()))
      throw TopologyError(origin, field + ".dim",
                          std::to_string(link.dim) + " is not -1 or a dimension of `dims` (0.." +
                              std::to_string(int(topo.dims.size()) - 1) + ")");
  }
}

void checkDimensionOrderLinks(const Topology &topo, const std::string &origin) {
  if (topo.routing != Routing::DimensionOrder) return;
  if (topo.dims.empty())
    throw TopologyError(origin, "routing",
                        "dimension_order routing needs `dims` and device coordinates");
  if (!topo.switches.empty())
    throw TopologyError(origin, "routing",
                        "dimension_order routing runs over devices only, but there are switches");
  // Every linked pair once, so the check is linear in the links (directLink per device and
  // dimension scanned every link: hypercube:16 took minutes).
  std::unordered_set<uint64_t> linked;
  auto pair = [](int a, int b) {
    return uint64_t(uint32_t(std::min(a, b))) << 32 | uint32_t(std::max(a, b));
  };
  for (const Link &link : topo.links) linked.insert(pair(link.a, link.b));
  for (int d = 0; d < int(topo.devices.size()); ++d)
    for (int dim = 0; dim < int(topo.dims.size()); ++dim) {
      std::optional<int> next = neighbourAlong(topo, d, dim, +1);
      if (!next || *next == d) continue;
      if (!linked.count(pair(d, *next)))
        throw TopologyError(origin, "links",
                            "dimension_order routing needs a link between " + vertexLabel(topo, d) +
                                " and " + vertexLabel(topo, *next) + " along dimension " +
                                std::to_string(dim));
    }
}

void checkConnected(const Topology &topo, const std::string &origin) {
  int first = -1;
  for (int d = 0; d < int(topo.devices.size()); ++d)
    if (!topo.devices[d].ranks.empty()) {
      first = d;
      break;
    }
  if (first < 0) return;
  std::vector<std::vector<int>> adjacent(topo.numVertices());
  for (const Link &link : topo.links) {
    adjacent[link.a].push_back(link.b);
    adjacent[link.b].push_back(link.a);
  }
  std::vector<bool> reached(topo.numVertices(), false);
  std::vector<int> stack{first};
  reached[first] = true;
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    for (int w : adjacent[v])
      if (!reached[w]) reached[w] = true, stack.push_back(w);
  }
  for (int d = 0; d < int(topo.devices.size()); ++d)
    if (!topo.devices[d].ranks.empty() && !reached[d])
      throw TopologyError(origin, "links",
                          "no path joins " + vertexLabel(topo, d) + " to " +
                              vertexLabel(topo, first) +
                              "; every device that holds ranks must be reachable");
}

} // namespace

void checkRankPartition(const Topology &topo, const std::string &origin) {
  if (topo.devices.empty()) throw TopologyError(origin, "devices", "needs at least one device");
  int numRanks = topo.numRanks();
  if (numRanks == 0) throw TopologyError(origin, "devices", "no device holds a rank");
  std::vector<int> owner(numRanks, -1);
  for (size_t d = 0; d < topo.devices.size(); ++d)
    for (size_t j = 0; j < topo.devices[d].ranks.size(); ++j) {
      int rank = topo.devices[d].ranks[j];
      std::string field = at(at("devices", d) + ".ranks", j);
      if (rank < 0 || rank >= numRanks)
        throw TopologyError(origin, field,
                            "rank " + std::to_string(rank) + " is out of range: ranks must be 0.." +
                                std::to_string(numRanks - 1) + " (the devices hold " +
                                std::to_string(numRanks) + " ranks in all)");
      if (owner[rank] >= 0)
        throw TopologyError(origin, field,
                            "rank " + std::to_string(rank) + " is already on device '" +
                                topo.devices[owner[rank]].name + "' (" +
                                at("devices", owner[rank]) + ")");
      owner[rank] = int(d);
    }
  // N placements, none repeated and all below N: every rank 0..N-1 is placed exactly once.
}

void validateTopology(const Topology &topo, const std::string &origin) {
  checkRankPartition(topo, origin);
  checkNames(topo, origin);
  checkPullTier(topo, origin);  // before the devices, whose far shared rate needs the tier
  checkDevices(topo, origin);
  checkCoords(topo, origin);
  checkLinks(topo, origin);
  checkPositive(topo.intraDeviceBandwidthGBps, origin, "intra_device.bandwidth_gbps");
  checkNonNegative(topo.intraDeviceLatencyUs, origin, "intra_device.latency_us");
  checkNonNegative(topo.intraDeviceCleanPullBytes, origin, "intra_device.clean_pull_local_bytes");
  checkDimensionOrderLinks(topo, origin);
  checkConnected(topo, origin);
}

} // namespace collplan
