// Switched generated topologies: PCIe switch tree and rail-optimised multi-node fat tree.
#include "runtime/topology/Generators.h"

#include "runtime/topology/GeneratorSupport.h"
#include "runtime/topology/TopologyError.h"

#include <algorithm>

namespace collplan {

Topology pcieSwitchTree(int devices, const PcieTreeParams &params) {
  std::string origin = "pcieSwitchTree(" + std::to_string(devices) + ")";
  checkCount(origin, "devices", devices, 1);
  checkCount(origin, "devices per switch", params.devicesPerSwitch, 1);
  Topology topo = baseTopology("pcie-" + std::to_string(devices), devices, params.device, origin);
  int leaves = (devices + params.devicesPerSwitch - 1) / params.devicesPerSwitch;
  for (int s = 0; s < leaves; ++s)
    topo.switches.push_back(Switch{"pcie-sw" + std::to_string(s), "pcie"});
  for (int d = 0; d < devices; ++d)
    addLink(topo, d, devices + d / params.devicesPerSwitch, params.device.link, -1);
  if (leaves > 1) {
    topo.switches.push_back(Switch{"pcie-root", "pcie"});
    for (int s = 0; s < leaves; ++s)
      addLink(topo, devices + s, devices + leaves, params.uplink, -1);
  }
  return finish(std::move(topo), origin);
}

namespace {

/// Refuses a shape the fat tree cannot be built with, naming the count at fault.
void checkFatTreeShape(const std::string &origin, int nodes, int gpusPerNode, int nicsPerNode,
                       const FatTreeParams &params) {
  checkCount(origin, "nodes", nodes, 1);
  checkCount(origin, "GPUs per node", gpusPerNode, 1);
  checkCount(origin, "NICs per node", nicsPerNode, nodes > 1 ? 1 : 0);
  checkCount(origin, "nodes per leaf", params.nodesPerLeaf, 1);
  checkCount(origin, "spines", params.spines, 1);
  checkAtMost(origin, "NICs per node", nicsPerNode, gpusPerNode);
  if (nicsPerNode > 0 && gpusPerNode % nicsPerNode != 0)
    throw TopologyError(origin, "",
                        "GPUs per node (" + std::to_string(gpusPerNode) +
                            ") must be a multiple of NICs per node (" +
                            std::to_string(nicsPerNode) + ")");
  if (!(params.oversubscription > 0))
    throw TopologyError(origin, "", "oversubscription must be positive");
}

/// Every leaf to every spine, each uplink carrying its share of the nodes under the leaf,
/// divided by the oversubscription.
void linkLeavesToSpines(Topology &topo, const std::vector<int> &leaves,
                        const std::vector<int> &spines, int nodes, int nicsPerNode,
                        const FatTreeParams &params) {
  for (size_t l = 0; l < leaves.size(); ++l) {
    int group = int(l) / nicsPerNode;
    int nodesUnderLeaf = std::min(params.nodesPerLeaf, nodes - group * params.nodesPerLeaf);
    LinkSpec uplink{params.nicToLeaf.bandwidthGBps * nodesUnderLeaf /
                        (params.spines * params.oversubscription),
                    params.leafToSpineLatencyUs, true};
    for (int spine : spines)
      addLink(topo, leaves[l], spine, uplink, -1);
  }
}

}  // namespace

Topology fatTree(int nodes, int gpusPerNode, int nicsPerNode, const FatTreeParams &params) {
  std::string origin = "fatTree(" + std::to_string(nodes) + " nodes, " +
                       std::to_string(gpusPerNode) + " GPUs, " + std::to_string(nicsPerNode) +
                       " NICs per node)";
  checkFatTreeShape(origin, nodes, gpusPerNode, nicsPerNode, params);

  GeneratorParams gpu;
  gpu.deviceKind = params.deviceKind;
  gpu.ranksPerDevice = params.ranksPerGpu;
  gpu.memBandwidthGBps = params.memBandwidthGBps;
  gpu.reduceGBps = params.reduceGBps;
  gpu.intraDeviceBandwidthGBps = params.intraDeviceBandwidthGBps;
  gpu.intraDeviceLatencyUs = params.intraDeviceLatencyUs;
  gpu.features = params.features;
  checkAtMost(origin, "GPUs", (long long)nodes * gpusPerNode, kMaxGeneratedRanks);
  Topology topo = baseTopology("fattree-" + std::to_string(nodes) + "x" +
                                   std::to_string(gpusPerNode) + "x" + std::to_string(nicsPerNode),
                               nodes * gpusPerNode, gpu, origin);
  int numDevices = nodes * gpusPerNode;
  auto addSwitch = [&](const std::string &name, const std::string &kind) {
    topo.switches.push_back(Switch{name, kind});
    return numDevices + int(topo.switches.size()) - 1;
  };

  int groups = (nodes + params.nodesPerLeaf - 1) / params.nodesPerLeaf;
  bool network = nodes > 1 && nicsPerNode > 0;
  std::vector<int> leaves; // leaves[group * nicsPerNode + rail]
  if (network)
    for (int g = 0; g < groups; ++g)
      for (int rail = 0; rail < nicsPerNode; ++rail)
        leaves.push_back(
            addSwitch("leaf" + std::to_string(g) + ".rail" + std::to_string(rail), "leaf"));

  for (int n = 0; n < nodes; ++n) {
    std::string node = "n" + std::to_string(n);
    int nvswitch = addSwitch(node + ".nvswitch", "nvswitch");
    for (int g = 0; g < gpusPerNode; ++g) {
      Device &device = topo.devices[n * gpusPerNode + g];
      device.name = node + ".gpu" + std::to_string(g);
      device.node = n;
      addLink(topo, n * gpusPerNode + g, nvswitch, params.nvlink, -1);
    }
    if (!network) continue;
    int gpusPerNic = gpusPerNode / nicsPerNode;
    for (int rail = 0; rail < nicsPerNode; ++rail) {
      int nic = addSwitch(node + ".nic" + std::to_string(rail), "nic");
      for (int g = rail * gpusPerNic; g < (rail + 1) * gpusPerNic; ++g)
        addLink(topo, n * gpusPerNode + g, nic, params.pcie, -1);
      addLink(topo, nic, leaves[(n / params.nodesPerLeaf) * nicsPerNode + rail], params.nicToLeaf,
              -1);
    }
  }

  if (network && leaves.size() > 1) {
    std::vector<int> spines;
    for (int s = 0; s < params.spines; ++s)
      spines.push_back(addSwitch("spine" + std::to_string(s), "spine"));
    linkLeavesToSpines(topo, leaves, spines, nodes, nicsPerNode, params);
  }
  return finish(std::move(topo), origin);
}

} // namespace collplan
