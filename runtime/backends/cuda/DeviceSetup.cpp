// DeviceSetup: COLLPLAN_CUDA_DEVICES parsing, grouping of ranks by device, the peer-access check.
#include "runtime/backends/cuda/DeviceSetup.h"

#include "runtime/exec/RuntimeError.h"

#include <algorithm>
#include <charconv>

namespace collplan::cuda {
namespace {

[[noreturn]] void badArgument(const std::string &message) {
  throw RuntimeError(ErrorCode::InvalidArgument, message);
}

std::string plural(size_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string_view trimmed(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

/// The devices `spec` names, in order, each checked against `deviceCount`.
std::vector<int> parseDevices(const std::string &spec, int deviceCount) {
  const std::string where = std::string(kDevicesVariable) + "=\"" + spec + "\": ";
  std::vector<int> devices;
  std::string_view rest = spec;
  for (;;) {
    const size_t comma = rest.find(',');
    const std::string_view item = trimmed(rest.substr(0, comma));
    int device = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), device);
    if (item.empty() || error != std::errc() || end != item.data() + item.size())
      badArgument(where + "\"" + std::string(item) + "\" is not a device number");
    if (device < 0)
      badArgument(where + "device " + std::to_string(device) +
                  " does not exist (devices are numbered from 0)");
    if (device >= deviceCount)
      badArgument(where + "device " + std::to_string(device) + " does not exist (" +
                  std::to_string(deviceCount) + (deviceCount == 1 ? " is" : " are") +
                  " visible)");
    devices.push_back(device);
    if (comma == std::string_view::npos) return devices;
    rest = rest.substr(comma + 1);
  }
}

}  // namespace

std::vector<int> assignDevices(int ranks, int rank, int deviceCount, const std::string &spec) {
  if (ranks < 1) badArgument("a cuda job needs at least 1 rank, got " + std::to_string(ranks));
  if (rank < -1 || rank >= ranks)
    badArgument("rank " + std::to_string(rank) + " is out of range for " +
                plural(size_t(ranks), "rank", "ranks") +
                " (-1: this process holds every rank)");
  if (deviceCount <= 0)
    throw RuntimeError(ErrorCode::Unsupported,
                       "no CUDA device is visible (cudaGetDeviceCount found none; check "
                       "CUDA_VISIBLE_DEVICES and the driver)");
  std::vector<int> deviceOfRank(size_t(ranks), 0);
  if (spec.empty()) {
    if (rank >= 0)
      for (int r = 0; r < ranks; ++r) deviceOfRank[size_t(r)] = r % deviceCount;
    return deviceOfRank;
  }
  const std::vector<int> devices = parseDevices(spec, deviceCount);
  if (devices.size() == 1) return std::vector<int>(size_t(ranks), devices[0]);
  if (devices.size() != size_t(ranks))
    badArgument(std::string(kDevicesVariable) + "=\"" + spec + "\": names " +
                plural(devices.size(), "device", "devices") + " for " +
                plural(size_t(ranks), "rank", "ranks") +
                " (give one device for every rank, or a comma list with one per rank)");
  return devices;
}

std::vector<DeviceGroup> groupByDevice(const std::vector<int> &deviceOfRank) {
  std::vector<DeviceGroup> groups;
  for (size_t r = 0; r < deviceOfRank.size(); ++r) {
    auto group = std::find_if(groups.begin(), groups.end(), [&](const DeviceGroup &g) {
      return g.device == deviceOfRank[r];
    });
    if (group == groups.end()) group = groups.insert(groups.end(), {deviceOfRank[r], {}});
    group->ranks.push_back(int(r));
  }
  return groups;
}

DeviceMode deviceMode(const std::vector<int> &deviceOfRank, bool oneRankPerProcess) {
  if (oneRankPerProcess) return DeviceMode::IpcProcesses;
  return groupByDevice(deviceOfRank).size() <= 1 ? DeviceMode::VirtualRanks
                                                  : DeviceMode::PeerDevices;
}

std::string_view toString(DeviceMode mode) {
  switch (mode) {
  case DeviceMode::VirtualRanks: return "virtual ranks";
  case DeviceMode::PeerDevices: return "peer devices";
  case DeviceMode::IpcProcesses: return "ipc processes";
  }
  return "unknown device mode";
}

void checkPeerAccess(const std::vector<int> &deviceOfRank,
                     const std::function<bool(int from, int to)> &canAccessPeer) {
  const std::vector<DeviceGroup> groups = groupByDevice(deviceOfRank);
  for (const DeviceGroup &from : groups)
    for (const DeviceGroup &to : groups) {
      if (&from == &to || canAccessPeer(from.device, to.device)) continue;
      const std::string a = std::to_string(from.device), b = std::to_string(to.device);
      badArgument("ranks on device " + a + " cannot read device " + b +
                  "'s memory (no peer access between them; cudaDeviceCanAccessPeer says no), " +
                  "so rank " + std::to_string(from.ranks.front()) + " cannot read rank " +
                  std::to_string(to.ranks.front()) + "'s buffers: put those ranks on one " +
                  "device or on devices with peer access (nvidia-smi topo -m)");
    }
}

}  // namespace collplan::cuda
