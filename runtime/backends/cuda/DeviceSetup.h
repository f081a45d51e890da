// DeviceSetup: the cuda backend's device per rank, launch groups, mode and peer check (no CUDA).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace collplan::cuda {

/// The environment variable that places ranks on devices: one device for every rank ("1") or a
/// comma list with one device per rank ("0,1,1,0").
inline constexpr const char *kDevicesVariable = "COLLPLAN_CUDA_DEVICES";

/// The device of each of `ranks` ranks. `spec` is COLLPLAN_CUDA_DEVICES ("" when unset); `rank`
/// is -1 when this process holds every rank, else its own rank. Unset, a process holding every
/// rank puts them all on device 0 (virtual ranks), and one rank per process puts rank r on
/// device r % deviceCount. Throws RuntimeError(Unsupported) when deviceCount <= 0, and
/// RuntimeError(InvalidArgument) when `spec` or the rank numbers are bad; errors about `spec`
/// start with COLLPLAN_CUDA_DEVICES="<spec>": and say what is wrong with it.
std::vector<int> assignDevices(int ranks, int rank, int deviceCount, const std::string &spec);

/// The ranks on one device: one kernel launch, in which they run concurrently.
struct DeviceGroup {
  int device = 0;
  std::vector<int> ranks;  ///< ascending
};

/// The devices of `deviceOfRank` in order of first use, each with its ranks.
std::vector<DeviceGroup> groupByDevice(const std::vector<int> &deviceOfRank);

enum class DeviceMode {
  VirtualRanks,  ///< every rank on one device, in one process
  PeerDevices,   ///< one process, ranks on several devices that read each other's memory
  IpcProcesses,  ///< one rank per process, peers' memory mapped through CUDA IPC handles
};

/// IpcProcesses when each process holds one rank; else VirtualRanks when every rank is on one
/// device, PeerDevices otherwise (also when some devices host several ranks).
DeviceMode deviceMode(const std::vector<int> &deviceOfRank, bool oneRankPerProcess);

/// "virtual ranks", "peer devices", "ipc processes".
std::string_view toString(DeviceMode mode);

/// Asks `canAccessPeer` (cudaDeviceCanAccessPeer in the backend) once for every ordered pair of
/// distinct devices that `deviceOfRank` uses, in order of first use, and throws
/// RuntimeError(InvalidArgument) at the first pair without access, naming both devices and the
/// lowest rank on each.
void checkPeerAccess(const std::vector<int> &deviceOfRank,
                     const std::function<bool(int from, int to)> &canAccessPeer);

}  // namespace collplan::cuda
