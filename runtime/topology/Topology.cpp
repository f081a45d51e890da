// Topology members: rank counts, the rank → device cache, torus neighbours.
#include "runtime/topology/Topology.h"

#include "runtime/topology/Queries.h"
#include "runtime/topology/TopologyError.h"
#include "runtime/topology/Validate.h"

#include <algorithm>
#include <set>

namespace collplan {

int Topology::numRanks() const {
  size_t total = 0;
  for (const Device &device : devices)
    total += device.ranks.size();
  return int(total);
}

int Topology::numNodes() const {
  std::set<int> nodes;
  for (const Device &device : devices) nodes.insert(device.node);
  return std::max(int(nodes.size()), 1);
}

int Topology::deviceOf(int rank) const {
  if (rankToDevice.size() != size_t(numRanks()))
    throw TopologyError("topology '" + name + "'", "",
                        "rank index is stale: call finalize() after changing devices");
  if (rank < 0 || rank >= int(rankToDevice.size()))
    throw TopologyError("topology '" + name + "'", "",
                        "rank " + std::to_string(rank) + " is out of range 0.." +
                            std::to_string(int(rankToDevice.size()) - 1));
  return rankToDevice[rank];
}

std::vector<int> Topology::neighbours(int device, int dim) const {
  std::vector<int> out;
  for (int direction : {-1, +1}) {
    std::optional<int> next = neighbourAlong(*this, device, dim, direction);
    if (next && *next != device && std::find(out.begin(), out.end(), *next) == out.end())
      out.push_back(*next);
  }
  return out;
}

void Topology::finalize() {
  checkRankPartition(*this, "topology '" + name + "'");
  rankToDevice.assign(numRanks(), -1);
  for (int d = 0; d < int(devices.size()); ++d)
    for (int rank : devices[d].ranks)
      rankToDevice[rank] = d;
}

} // namespace collplan
