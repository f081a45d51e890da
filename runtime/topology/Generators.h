// Generated topologies: ring, line, switch, fully connected, hypercube, torus, PCIe tree, fat
// tree, and the local machine (hwloc). Each returns a validated, finalized Topology.
#pragma once

#include "runtime/topology/Topology.h"

#include <string>
#include <vector>

namespace collplan {

/// Bandwidth (GB/s = 1e9 bytes/s, per direction when duplex) and latency of one kind of link.
struct LinkSpec {
  double bandwidthGBps = 100;
  double latencyUs = 1.0;
  bool duplex = true;
};

/// What the devices and links of a simple generated topology are like. The defaults describe a
/// generic accelerator (1 TB/s memory, 100 GB/s 1 us links); presets override them.
struct GeneratorParams {
  std::string deviceKind = "chip";
  int ranksPerDevice = 1; ///< device d holds ranks d*R .. d*R+R-1
  double memBandwidthGBps = 1000;
  double reduceGBps = 0;                 ///< 0: reductions limited by memory bandwidth only
  LinkSpec link;                         ///< every link the generator creates
  double intraDeviceBandwidthGBps = 500; ///< a copy reads and writes the same memory: ~half
  double intraDeviceLatencyUs = 0.1;
  Features features;
};

/// n devices in a cycle (n links for n >= 3, one for n = 2); dims = {n}, wrapping.
Topology ring(int n, const GeneratorParams &params = {});
/// n devices in a chain (n-1 links); dims = {n}, no wrap-around.
Topology line(int n, const GeneratorParams &params = {});
/// n devices, each linked to one switch (a star).
Topology switchTopology(int n, const GeneratorParams &params = {});
/// n devices with a direct link between every pair.
Topology fullyConnected(int n, const GeneratorParams &params = {});
/// 2^dims devices; device bits are its coordinates (dims = {2,...,2}); dimension-order routing.
Topology hypercube(int dims, const GeneratorParams &params = {});
/// A wrapping torus of chips with the given extents, `ranksPerChip` ranks per chip (replaces
/// params.ranksPerDevice), dimension-order routing. Chip index is mixed radix, last coordinate
/// fastest; an extent of 2 gets one link per pair, not two.
Topology torus(const std::vector<int> &dims, int ranksPerChip, const GeneratorParams &params = {});
/// torus({x, y}, ranksPerChip): e.g. torus2d(4, 4, 4) is 16 chips of 4 ranks.
Topology torus2d(int x, int y, int ranksPerChip, const GeneratorParams &params = {});

/// A PCIe tree: devices under leaf switches of `devicesPerSwitch` ports, leaf switches under one
/// root switch (no root when one leaf suffices).
struct PcieTreeParams {
  GeneratorParams device{"chip", 1, 1000, 0, LinkSpec{60, 0.5, true}, 500, 0.1, Features{}};
  int devicesPerSwitch = 8;
  LinkSpec uplink{60, 0.5, true}; ///< leaf switch ↔ root switch
};
Topology pcieSwitchTree(int devices, const PcieTreeParams &params = {});

/// A multi-node GPU cluster: in each node the GPUs hang off one NVSwitch-like switch; each GPU
/// reaches its NIC over PCIe (GPU g uses NIC g / (gpusPerNode / nicsPerNode)); the network is
/// rail-optimised: NIC k of every node in a group of `nodesPerLeaf` nodes plugs into leaf switch
/// (group, k), and every leaf connects to every spine. Defaults are H100/NDR-class.
struct FatTreeParams {
  std::string deviceKind = "gpu";
  int ranksPerGpu = 1;
  double memBandwidthGBps = 3350;
  double reduceGBps = 0;
  double intraDeviceBandwidthGBps = 1675;
  double intraDeviceLatencyUs = 0.1;
  LinkSpec nvlink{450, 0.4, true};   ///< GPU ↔ node switch
  LinkSpec pcie{60, 0.5, true};      ///< GPU ↔ NIC
  LinkSpec nicToLeaf{50, 1.0, true}; ///< NIC ↔ leaf switch
  double leafToSpineLatencyUs = 0.5;
  int nodesPerLeaf = 32;
  int spines = 8;
  /// Leaf ↔ spine bandwidth is (NIC bandwidth × nodes under the leaf) / (spines ×
  /// oversubscription): 1 means non-blocking.
  double oversubscription = 1.0;
  Features features{true, true, false};
};
Topology fatTree(int nodes, int gpusPerNode, int nicsPerNode, const FatTreeParams &params = {});

/// The machine this process runs on, discovered with hwloc. Devices are NUMA nodes that hold
/// cores (memory-only NUMA nodes are left out); ranks go one per core, or `ranks` in all spread
/// in contiguous blocks. Memory bandwidth comes from hwloc's memory attributes when the firmware
/// reports them (ACPI HMAT), else is estimated as `memGBpsPerCore` per core (a DDR4/DDR5 channel
/// gives 20-40 GB/s and servers have one per 2-4 cores); inter-NUMA links take their latency
/// from hwloc's NUMA distances (relative, 10 = local; 2x local where hwloc has none) scaled by
/// `localLatencyUs`. These are estimates for planning; a calibrated topology file replaces them.
struct LocalMachineParams {
  int ranks = 0; ///< 0: one rank per core
  double memGBpsPerCore = 8;
  double interNumaBandwidthGBps = 40; ///< UPI / Infinity Fabric class estimate
  double localLatencyUs = 0.2;        ///< a flag hand-off through a shared cache line
};
Topology localMachine(const LocalMachineParams &params = {});

/// Machines joined by one network switch (the first device of each node links to it with
/// `network`): node k is a copy of `machines[k]` (devices and links, no switches) whose local
/// rank i is rank ranksByNode[k][i] of the result, as a launcher placed ranks on machines. Other
/// settings (features, intra-device figures) come from machines[0]. Throws TopologyError unless
/// the nodes hold ranks 0..R-1 once each and every machine has as many ranks as its node.
Topology multiNode(const std::vector<Topology> &machines,
                   const std::vector<std::vector<int>> &ranksByNode, const LinkSpec &network);

} // namespace collplan
