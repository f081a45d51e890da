// localMachine(): the machine this process runs on, discovered with hwloc (NUMA nodes as
// devices, cores as ranks, NUMA distances as link latencies).
#include "runtime/topology/Generators.h"

#include "runtime/topology/GeneratorSupport.h"
#include "runtime/topology/TopologyError.h"

#include <hwloc.h>

#include <algorithm>

namespace collplan {
namespace {

const char *kOrigin = "localMachine()";

/// Owns a loaded hwloc topology.
struct HwlocTopology {
  hwloc_topology_t handle = nullptr;
  HwlocTopology() {
    if (hwloc_topology_init(&handle) != 0 || hwloc_topology_load(handle) != 0) {
      if (handle) hwloc_topology_destroy(handle);
      handle = nullptr;
      throw TopologyError(kOrigin, "", "hwloc could not discover this machine's topology");
    }
  }
  ~HwlocTopology() {
    if (handle) hwloc_topology_destroy(handle);
  }
  HwlocTopology(const HwlocTopology &) = delete;
  HwlocTopology &operator=(const HwlocTopology &) = delete;
};

/// Local-initiator bandwidth of a NUMA node in GB/s from hwloc memory attributes (HMAT), or 0.
double reportedBandwidthGBps(hwloc_topology_t topo, hwloc_obj_t numa) {
  hwloc_location initiator;
  initiator.type = HWLOC_LOCATION_TYPE_CPUSET;
  initiator.location.cpuset = numa->cpuset;
  hwloc_uint64_t mibPerSecond = 0;
  if (hwloc_memattr_get_value(topo, HWLOC_MEMATTR_ID_BANDWIDTH, numa, &initiator, 0,
                              &mibPerSecond) != 0)
    return 0;
  return double(mibPerSecond) * 1048576.0 / 1e9;
}

/// NUMA distance of (a, b) relative to a's local distance, or 0 when hwloc reports none.
double relativeDistance(hwloc_topology_t topo, hwloc_obj_t a, hwloc_obj_t b) {
  unsigned count = 1;
  hwloc_distances_s *distances = nullptr;
  if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &count, &distances,
                                  HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 ||
      count == 0)
    return 0;
  hwloc_uint64_t ab = 0, aa = 0;
  int found = hwloc_distances_obj_pair_values(distances, a, b, &ab, nullptr);
  int foundLocal = hwloc_distances_obj_pair_values(distances, a, a, &aa, nullptr);
  hwloc_distances_release(topo, distances);
  if (found != 0 || foundLocal != 0 || aa == 0) return 0;
  return double(ab) / double(aa);
}

} // namespace

Topology localMachine(const LocalMachineParams &params) {
  checkCount(kOrigin, "ranks", params.ranks, 0);
  checkAtMost(kOrigin, "ranks", params.ranks, kMaxGeneratedRanks);
  HwlocTopology hw;

  struct Domain {
    hwloc_obj_t numa;
    int cores;
  };
  std::vector<Domain> domains;
  int numNuma = hwloc_get_nbobjs_by_type(hw.handle, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < numNuma; ++i) {
    hwloc_obj_t numa = hwloc_get_obj_by_type(hw.handle, HWLOC_OBJ_NUMANODE, i);
    int cores = hwloc_get_nbobjs_inside_cpuset_by_type(hw.handle, numa->cpuset, HWLOC_OBJ_CORE);
    if (cores <= 0)
      cores = hwloc_get_nbobjs_inside_cpuset_by_type(hw.handle, numa->cpuset, HWLOC_OBJ_PU);
    if (cores > 0) domains.push_back({numa, cores});
  }
  if (domains.empty()) throw TopologyError(kOrigin, "", "hwloc found no NUMA node with cores");

  int totalCores = 0;
  for (const Domain &domain : domains)
    totalCores += domain.cores;
  int totalRanks = params.ranks > 0 ? params.ranks : totalCores;

  Topology topo;
  topo.name = "local";
  topo.features = Features{true, true, false}; // shared memory: dup and peer reads are loads/stores
  double slowestMemory = 0;
  // Ranks spread in proportion to cores: device i gets ranks [start(i), start(i+1)).
  int coresBefore = 0, nextRank = 0;
  for (size_t i = 0; i < domains.size(); ++i) {
    Device device;
    device.name = "numa" + std::to_string(domains[i].numa->logical_index);
    device.kind = domains.size() == 1 ? "cpu" : "socket";
    device.enginesPerRank = 1;  // a CPU rank is one thread: its channels take turns
    coresBefore += domains[i].cores;
    int endRank = int((long long)totalRanks * coresBefore / totalCores);
    for (; nextRank < endRank; ++nextRank)
      device.ranks.push_back(nextRank);
    double reported = reportedBandwidthGBps(hw.handle, domains[i].numa);
    device.memBandwidthGBps = reported > 0 ? reported : params.memGBpsPerCore * domains[i].cores;
    slowestMemory =
        i == 0 ? device.memBandwidthGBps : std::min(slowestMemory, device.memBandwidthGBps);
    topo.devices.push_back(device);
  }
  // A copy between ranks of one device reads and writes the same memory.
  topo.intraDeviceBandwidthGBps = slowestMemory / 2;
  topo.intraDeviceLatencyUs = params.localLatencyUs;
  for (size_t a = 0; a < domains.size(); ++a)
    for (size_t b = a + 1; b < domains.size(); ++b) {
      double relative = relativeDistance(hw.handle, domains[a].numa, domains[b].numa);
      double latency = params.localLatencyUs * (relative > 0 ? relative : 2.0);
      addLink(topo, int(a), int(b), LinkSpec{params.interNumaBandwidthGBps, latency, true}, -1);
    }
  return finish(std::move(topo), kOrigin);
}

} // namespace collplan
