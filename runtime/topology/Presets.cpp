// Named topologies of real hardware classes. Figures are public vendor numbers (cited where
// used); figures no vendor publishes (per-hop latencies, intra-device copy rates) are marked as
// estimates. Bandwidths are GB/s = 1e9 bytes/s per direction.
#include "runtime/topology/Presets.h"

#include "runtime/topology/GeneratorSupport.h"
#include "runtime/topology/Generators.h"
#include "runtime/topology/TopologyError.h"

namespace collplan {

Topology trn2Preset() {
  GeneratorParams chip;
  chip.deviceKind = "chip";
  // AWS Neuron docs, "Trainium2 Architecture": 96 GiB of HBM at 2.9 TB/s per chip.
  chip.memBandwidthGBps = 2900;
  // Same page: NeuronLink-v3 gives 1.28 TB/s per chip; the NKI Trainium2 architecture guide
  // lists 4 NeuronLink-v3 ports per chip. Read as the sum over 4 links and both directions (the
  // convention NVIDIA's "900 GB/s" NVLink figure uses): 1280 / 4 / 2 = 160 GB/s per direction.
  chip.link = LinkSpec{160, 1.5, true};
  // Issue 5 / public talks put a NeuronLink hop at 1-2 us: 1.5 us is the midpoint (estimate).
  // Ranks of one chip exchange through HBM: a copy reads and writes, so half of 2.9 TB/s
  // (estimate); 0.5 us to hand a buffer between NeuronCores (estimate).
  chip.intraDeviceBandwidthGBps = 1450;
  chip.intraDeviceLatencyUs = 0.5;
  // DMA engines write one read to several destinations; NeuronCores of a chip share its HBM.
  chip.features = Features{true, true, false};
  // Neuron docs, "Best practices for training": a trn2.48xlarge has 16 chips joined by
  // NeuronLink-v3 in a 4 x 4 torus; the default Logical NeuronCore configuration (LNC=2) gives
  // four logical NeuronCores (ranks) per chip, 64 ranks per instance.
  Topology topo = torus2d(4, 4, 4, chip);
  topo.name = "trn2";
  return topo;
}

Topology nvswitchH100Preset() {
  GeneratorParams gpu;
  gpu.deviceKind = "gpu";
  // NVIDIA H100 Tensor Core GPU datasheet (SXM5): HBM3 at 3.35 TB/s.
  gpu.memBandwidthGBps = 3350;
  // Same datasheet: NVLink 900 GB/s per GPU, the sum of both directions: 450 GB/s each way,
  // all of it through the NVSwitch fabric of an HGX/DGX H100 board. 0.4 us per GPU-switch link
  // (so ~0.8 us GPU to GPU) is an estimate.
  gpu.link = LinkSpec{450, 0.4, true};
  gpu.intraDeviceBandwidthGBps = 1675; // half of HBM: a copy reads and writes (estimate)
  gpu.intraDeviceLatencyUs = 0.1;      // estimate
  // Peer access (loads/stores over NVLink) gives duplication and remote reads; third-generation
  // NVSwitch adds NVLink SHARP multicast (NVIDIA DGX H100 user guide / NVSwitch documentation).
  gpu.features = Features{true, true, true};
  Topology topo = switchTopology(8, gpu);
  topo.name = "nvswitch-h100";
  topo.switches[0] = Switch{"nvswitch", "nvswitch"};
  return topo;
}

Topology pcie7Preset() {
  PcieTreeParams params;
  // Issue 5: 60 GB/s full-duplex links, i.e. 60 GB/s each way (about a PCIe Gen5 x16 link,
  // 64 GB/s raw per direction). 0.5 us per device-switch link is an estimate (switch
  // port-to-port latency is ~0.1-0.2 us; the rest is DMA and endpoint overhead).
  params.device.link = LinkSpec{60, 0.5, true};
  // Device memory is not part of the figure: 1 TB/s (assumption) keeps the links the bottleneck.
  params.device.memBandwidthGBps = 1000;
  params.device.intraDeviceBandwidthGBps = 500;
  params.device.intraDeviceLatencyUs = 0.1;
  params.device.features = Features{false, false, false};
  params.devicesPerSwitch = 7;
  Topology topo = pcieSwitchTree(7, params);
  topo.name = "pcie-7";
  return topo;
}

Topology clusterPreset(int nodes) {
  std::string origin = "cluster(" + std::to_string(nodes) + ")";
  checkCount(origin, "nodes", nodes, 1);
  checkAtMost(origin, "nodes", nodes, kMaxClusterNodes);
  FatTreeParams params;
  // GPU side as nvswitch-h100 (H100 SXM5 datasheet: 3.35 TB/s HBM3, 450 GB/s NVLink each way).
  params.memBandwidthGBps = 3350;
  params.nvlink = LinkSpec{450, 0.4, true};
  // One NVIDIA ConnectX-7 NDR InfiniBand NIC per GPU (DGX H100 user guide: eight single-port
  // ConnectX-7 for the compute fabric): 400 Gb/s = 50 GB/s each way. ~1 us NIC + cable + leaf
  // switch and 0.5 us leaf to spine are estimates.
  params.nicToLeaf = LinkSpec{50, 1.0, true};
  params.leafToSpineLatencyUs = 0.5;
  // GPU to NIC through a PCIe Gen5 x16 switch: ~60 GB/s usable each way (64 GB/s raw).
  params.pcie = LinkSpec{60, 0.5, true};
  // Rail-optimised "scalable unit" of 32 nodes per leaf (DGX SuperPOD reference architecture),
  // 8 spines, non-blocking.
  params.nodesPerLeaf = 32;
  params.spines = 8;
  params.oversubscription = 1.0;
  params.features = Features{true, true, false}; // multicast is NVLS inside a node only
  Topology topo = fatTree(nodes, 8, 8, params);
  topo.name = "cluster-" + std::to_string(nodes);
  return topo;
}

} // namespace collplan
