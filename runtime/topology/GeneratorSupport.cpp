// Shared helpers of the topology generators.
#include "runtime/topology/GeneratorSupport.h"

#include "runtime/topology/TopologyError.h"
#include "runtime/topology/Validate.h"

namespace collplan {

void checkCount(const std::string &origin, const std::string &what, long long value,
                long long minimum) {
  if (value < minimum)
    throw TopologyError(origin, "",
                        what + " must be at least " + std::to_string(minimum) + ", got " +
                            std::to_string(value));
}

void checkAtMost(const std::string &origin, const std::string &what, long long value,
                 long long maximum) {
  if (value > maximum)
    throw TopologyError(origin, "",
                        what + " must be at most " + std::to_string(maximum) + ", got " +
                            std::to_string(value));
}

Topology baseTopology(const std::string &name, int numDevices, const GeneratorParams &params,
                      const std::string &origin) {
  checkCount(origin, "ranks per device", params.ranksPerDevice, 1);
  checkAtMost(origin, "ranks", (long long)numDevices * params.ranksPerDevice, kMaxGeneratedRanks);
  Topology topo;
  topo.name = name;
  topo.features = params.features;
  topo.intraDeviceBandwidthGBps = params.intraDeviceBandwidthGBps;
  topo.intraDeviceLatencyUs = params.intraDeviceLatencyUs;
  for (int d = 0; d < numDevices; ++d) {
    Device device;
    device.name = "d" + std::to_string(d);
    device.kind = params.deviceKind;
    device.memBandwidthGBps = params.memBandwidthGBps;
    device.reduceGBps = params.reduceGBps;
    for (int r = 0; r < params.ranksPerDevice; ++r)
      device.ranks.push_back(d * params.ranksPerDevice + r);
    topo.devices.push_back(device);
  }
  return topo;
}

int addLink(Topology &topo, VertexId a, VertexId b, const LinkSpec &spec, int dim) {
  topo.links.push_back(Link{a, b, spec.bandwidthGBps, spec.latencyUs, spec.duplex, dim});
  return int(topo.links.size()) - 1;
}

Topology finish(Topology topo, const std::string &origin) {
  validateTopology(topo, origin);
  topo.finalize();
  return topo;
}

} // namespace collplan
