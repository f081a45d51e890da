// Named topologies of real hardware classes, with the public figures they use cited in
// Presets.cpp: trn2, nvswitch-h100, pcie-7, cluster:<nodes>.
#pragma once

#include "runtime/topology/Topology.h"

namespace collplan {

/// A Trainium2-like node: 16 chips in a 4x4 wrapping 2D torus, 4 ranks (logical NeuronCores)
/// per chip, dimension-order routing, 1.5 us per hop.
Topology trn2Preset();
/// An 8-GPU H100 SXM node: every GPU linked to one NVSwitch at 450 GB/s per direction.
Topology nvswitchH100Preset();
/// 7 devices behind one PCIe switch, 60 GB/s per direction full-duplex links.
Topology pcie7Preset();

inline constexpr int kMaxClusterNodes = 1024;
/// `nodes` nvswitch-h100 nodes (8 GPUs, 8 ranks), one 400 Gb/s NIC per GPU, rail-optimised
/// two-level fat tree. 1 <= nodes <= kMaxClusterNodes; throws TopologyError otherwise.
Topology clusterPreset(int nodes);

} // namespace collplan
