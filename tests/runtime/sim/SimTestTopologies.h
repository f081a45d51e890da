// Topologies for the simulator's tests: generator shorthands and hand-built graphs.
#pragma once

#include "runtime/topology/Generators.h"
#include "runtime/topology/Topology.h"

#include <vector>

namespace collplan::simtest {

/// Generator parameters: every link `bandwidthGBps` per direction and `latencyUs` per hop;
/// devices with `memGBps` of memory bandwidth and one rank each.
GeneratorParams linkParams(double bandwidthGBps, double latencyUs, double memGBps = 1000);

/// A link of a hand-built topology between vertices (devices first, then switches).
struct TestLink {
  int a = 0, b = 0;
  double bandwidthGBps = 1;
  double latencyUs = 0;
  bool duplex = true;
};

/// Device d holds ranksPerDevice[d] consecutive ranks; `switches` switches follow the devices;
/// every device has `memGBps` of memory bandwidth. The result is finalized.
Topology handBuilt(const std::vector<int> &ranksPerDevice, int switches,
                   const std::vector<TestLink> &links, double memGBps = 1000);

}  // namespace collplan::simtest
