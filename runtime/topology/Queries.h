// Questions the compiler, simulator and tuner ask of a topology: positions, routes, cycles, rings.
#pragma once

#include "runtime/topology/Topology.h"

#include <optional>
#include <vector>

namespace collplan {

/// The device at torus/hypercube position `coords`, if any.
std::optional<int> deviceAt(const Topology &topo, const std::vector<int> &coords);

/// The device one step from `device` along dimension `dim` in `direction` (-1 or +1), wrapping
/// around when `topo.wrap`; nullopt at the edge of a mesh. Throws TopologyError when the
/// topology has no such dimension or the device has no coordinates.
std::optional<int> neighbourAlong(const Topology &topo, int device, int dim, int direction);

/// Index of a link joining vertices `a` and `b` directly, preferring one that runs along `dim`
/// (when dim >= 0), lowest index first; -1 when they are not adjacent.
int directLink(const Topology &topo, int a, int b, int dim = -1);

/// The link indices a message from rank `from` to rank `to` crosses, in order (see route()).
std::vector<int> routeLinks(const Topology &topo, int from, int to);
/// Number of links crossed from `from` to `to` (0 on one device).
int hopCount(const Topology &topo, int from, int to);
/// Sum of link latencies on the route; the intra-device latency when both ranks share a device.
double routeLatencyUs(const Topology &topo, int from, int to);
/// The narrowest link bandwidth on the route; the intra-device bandwidth on one device.
double routeBandwidthGBps(const Topology &topo, int from, int to);

/// Up to `count` Hamiltonian cycles over the devices, pairwise link-disjoint, each using only
/// direct device-to-device links (a cycle lists every device once; its last device is adjacent
/// to its first). Square 2D tori (k x k, k >= 3, wrapping) use a closed-form decomposition into
/// two cycles; hypercubes start with the Gray code; other graphs are searched with a bounded
/// depth-first search, so fewer cycles than asked (or none) may come back.
std::vector<std::vector<int>> hamiltonianCycles(const Topology &topo, int count = 2);

/// The links a device cycle crosses, one per consecutive pair including last → first.
/// Throws TopologyError when two consecutive devices are not directly linked.
std::vector<int> cycleLinks(const Topology &topo, const std::vector<int> &deviceCycle);

/// A rank order for a ring that follows the hardware: devices along a Hamiltonian cycle when
/// one exists (torus, hypercube, ring, fully connected), else along a snake over the mesh
/// coordinates, else grouped by node and in device order (switched systems); the ranks of one
/// device are consecutive. A permutation of 0..N-1.
std::vector<int> ringOrder(const Topology &topo);

/// The ranks of the devices in `deviceOrder`, each device's ranks consecutive.
std::vector<int> ranksInDeviceOrder(const Topology &topo, const std::vector<int> &deviceOrder);

} // namespace collplan
