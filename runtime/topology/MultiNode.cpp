// multiNode(): machines (each a topology of its own) joined by one network switch, with the job's
// ranks placed on them as a launcher (mpirun) placed them.
#include "runtime/topology/Generators.h"

#include "runtime/topology/GeneratorSupport.h"
#include "runtime/topology/TopologyError.h"

#include <set>

namespace collplan {
namespace {

const char *kOrigin = "multiNode()";

/// Throws unless `ranksByNode` names every rank 0..R-1 exactly once and node k holds exactly
/// as many ranks as `machines[k]`.
void checkPlacement(const std::vector<Topology> &machines,
                    const std::vector<std::vector<int>> &ranksByNode) {
  if (machines.empty() || machines.size() != ranksByNode.size())
    throw TopologyError(kOrigin, "", "needs one machine per node and at least one node, got " +
                                         std::to_string(machines.size()) + " machines for " +
                                         std::to_string(ranksByNode.size()) + " nodes");
  std::set<int> seen;
  size_t total = 0;
  for (size_t k = 0; k < machines.size(); ++k) {
    if (machines[k].numRanks() != int(ranksByNode[k].size()))
      throw TopologyError(kOrigin, "", "node " + std::to_string(k) + " has " +
                                           std::to_string(ranksByNode[k].size()) +
                                           " ranks but its machine has " +
                                           std::to_string(machines[k].numRanks()));
    total += ranksByNode[k].size();
    seen.insert(ranksByNode[k].begin(), ranksByNode[k].end());
  }
  if (seen.size() != total || (total > 0 && (*seen.begin() != 0 || *seen.rbegin() != int(total) - 1)))
    throw TopologyError(kOrigin, "", "the nodes' ranks must be 0.." + std::to_string(total - 1) +
                                         ", each on exactly one node");
}

}  // namespace

Topology multiNode(const std::vector<Topology> &machines,
                   const std::vector<std::vector<int>> &ranksByNode, const LinkSpec &network) {
  checkPlacement(machines, ranksByNode);
  Topology topo = machines[0];  // device-independent settings come from the first machine
  topo.name = std::to_string(machines.size()) + " nodes";
  topo.devices.clear();
  topo.switches.clear();
  topo.links.clear();
  topo.dims.clear();
  std::vector<VertexId> firstDevice;
  for (size_t k = 0; k < machines.size(); ++k) {
    const Topology &machine = machines[k];
    const VertexId offset = VertexId(topo.devices.size());
    firstDevice.push_back(offset);
    for (const Device &local : machine.devices) {
      Device device = local;
      device.name = "n" + std::to_string(k) + "." + local.name;
      device.node = int(k);
      device.coords.clear();
      for (int &rank : device.ranks) rank = ranksByNode[k][size_t(rank)];
      topo.devices.push_back(std::move(device));
    }
    if (!machine.switches.empty())
      throw TopologyError(kOrigin, "", "node " + std::to_string(k) +
                                           "'s machine has switches; only devices and the links "
                                           "between them can be placed on a node");
    for (const Link &link : machine.links) {
      Link copy = link;
      copy.a += offset;
      copy.b += offset;
      copy.dim = -1;
      topo.links.push_back(copy);
    }
  }
  if (machines.size() > 1) {
    // Switch vertices follow every device.
    const VertexId networkSwitch = VertexId(topo.devices.size());
    topo.switches.push_back(Switch{"network", "switch"});
    for (VertexId device : firstDevice) addLink(topo, device, networkSwitch, network, -1);
  }
  return finish(std::move(topo), kOrigin);
}

}  // namespace collplan
