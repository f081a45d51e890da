// Topologies for the simulator's tests: generator shorthands and hand-built graphs.
#include "SimTestTopologies.h"

#include <string>

namespace collplan::simtest {

GeneratorParams linkParams(double bandwidthGBps, double latencyUs, double memGBps) {
  GeneratorParams params;
  params.link = LinkSpec{bandwidthGBps, latencyUs, true};
  params.memBandwidthGBps = memGBps;
  return params;
}

Topology handBuilt(const std::vector<int> &ranksPerDevice, int switches,
                   const std::vector<TestLink> &links, double memGBps) {
  Topology topo;
  topo.name = "hand-built";
  int rank = 0;
  for (size_t d = 0; d < ranksPerDevice.size(); ++d) {
    Device device;
    device.name = "d" + std::to_string(d);
    device.memBandwidthGBps = memGBps;
    for (int k = 0; k < ranksPerDevice[d]; ++k) device.ranks.push_back(rank++);
    topo.devices.push_back(device);
  }
  for (int s = 0; s < switches; ++s) topo.switches.push_back(Switch{"s" + std::to_string(s)});
  for (const TestLink &spec : links) {
    Link link;
    link.a = spec.a;
    link.b = spec.b;
    link.bandwidthGBps = spec.bandwidthGBps;
    link.latencyUs = spec.latencyUs;
    link.duplex = spec.duplex;
    topo.links.push_back(link);
  }
  topo.intraDeviceBandwidthGBps = 100;
  topo.intraDeviceLatencyUs = 0.5;
  topo.finalize();
  return topo;
}

}  // namespace collplan::simtest
