// Tests of the cuda backend's device assignment, grouping, mode and peer-access check.
#include "runtime/backends/cuda/DeviceSetup.h"

#include "runtime/exec/RuntimeError.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace collplan::cuda {
namespace {

/// The error assignDevices throws, checked for its code.
std::string assignError(int ranks, int rank, int deviceCount, const std::string &spec,
                        ErrorCode code = ErrorCode::InvalidArgument) {
  try {
    assignDevices(ranks, rank, deviceCount, spec);
  } catch (const RuntimeError &e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for spec \"" << spec << "\"";
  return "";
}

using Devices = std::vector<int>;

TEST(CudaDeviceSetup, NoVisibleDeviceIsUnsupported) {
  const std::string message = "no CUDA device is visible (cudaGetDeviceCount found none; check "
                              "CUDA_VISIBLE_DEVICES and the driver)";
  EXPECT_EQ(assignError(2, -1, 0, "", ErrorCode::Unsupported), message);
  EXPECT_EQ(assignError(2, 1, -1, "0", ErrorCode::Unsupported), message);
}

TEST(CudaDeviceSetup, UnsetPutsVirtualRanksOnDeviceZero) {
  EXPECT_EQ(assignDevices(4, -1, 2, ""), Devices({0, 0, 0, 0}));
  EXPECT_EQ(assignDevices(1, -1, 1, ""), Devices({0}));
}

TEST(CudaDeviceSetup, UnsetPutsProcessRanksRoundRobin) {
  EXPECT_EQ(assignDevices(5, 1, 2, ""), Devices({0, 1, 0, 1, 0}));
  EXPECT_EQ(assignDevices(3, 0, 8, ""), Devices({0, 1, 2}));
  EXPECT_EQ(assignDevices(3, 2, 1, ""), Devices({0, 0, 0}));
}

TEST(CudaDeviceSetup, OneDevicePutsEveryRankThere) {
  EXPECT_EQ(assignDevices(3, -1, 2, "1"), Devices({1, 1, 1}));
  EXPECT_EQ(assignDevices(3, 2, 4, " 3 "), Devices({3, 3, 3}));
}

TEST(CudaDeviceSetup, ListPutsRankIOnTheIthDevice) {
  EXPECT_EQ(assignDevices(3, -1, 4, "2,0,3"), Devices({2, 0, 3}));
  EXPECT_EQ(assignDevices(4, 1, 2, "0, 1,\t1 ,0"), Devices({0, 1, 1, 0}));
}

TEST(CudaDeviceSetup, ListOfAnotherLengthIsRefused) {
  EXPECT_EQ(assignError(4, -1, 2, "0,1,1"),
            "COLLPLAN_CUDA_DEVICES=\"0,1,1\": names 3 devices for 4 ranks (give one device for "
            "every rank, or a comma list with one per rank)");
  EXPECT_EQ(assignError(1, 0, 2, "0,1"),
            "COLLPLAN_CUDA_DEVICES=\"0,1\": names 2 devices for 1 rank (give one device for "
            "every rank, or a comma list with one per rank)");
}

TEST(CudaDeviceSetup, NonNumbersAreRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"x", "x"},       {"1.5", "1.5"},  {"0,,1", ""},      {"0,1,", ""},
      {"+1", "+1"},     {" ", ""},       {"0x1", "0x1"},    {"99999999999", "99999999999"},
      {"1 2", "1 2"},   {"0,gpu1", "gpu1"}};
  for (const auto &[spec, item] : cases)
    EXPECT_EQ(assignError(2, -1, 2, spec),
              "COLLPLAN_CUDA_DEVICES=\"" + spec + "\": \"" + item + "\" is not a device number");
}

TEST(CudaDeviceSetup, NegativeDevicesAreRefused) {
  EXPECT_EQ(assignError(2, -1, 2, "0,-1"),
            "COLLPLAN_CUDA_DEVICES=\"0,-1\": device -1 does not exist (devices are numbered "
            "from 0)");
  EXPECT_EQ(assignError(2, 0, 2, "-3"),
            "COLLPLAN_CUDA_DEVICES=\"-3\": device -3 does not exist (devices are numbered from 0)");
}

TEST(CudaDeviceSetup, DevicesBeyondTheVisibleOnesAreRefused) {
  EXPECT_EQ(assignError(4, -1, 2, "5"),
            "COLLPLAN_CUDA_DEVICES=\"5\": device 5 does not exist (2 are visible)");
  EXPECT_EQ(assignError(2, 1, 1, "0,1"),
            "COLLPLAN_CUDA_DEVICES=\"0,1\": device 1 does not exist (1 is visible)");
}

TEST(CudaDeviceSetup, BadRankNumbersAreRefused) {
  EXPECT_EQ(assignError(0, -1, 1, ""), "a cuda job needs at least 1 rank, got 0");
  EXPECT_EQ(assignError(4, 4, 1, ""),
            "rank 4 is out of range for 4 ranks (-1: this process holds every rank)");
  EXPECT_EQ(assignError(1, -2, 1, ""),
            "rank -2 is out of range for 1 rank (-1: this process holds every rank)");
}

TEST(CudaDeviceSetup, GroupsFollowFirstUseWithRanksAscending) {
  const std::vector<DeviceGroup> groups = groupByDevice({1, 0, 1, 2, 0});
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].device, 1);
  EXPECT_EQ(groups[0].ranks, Devices({0, 2}));
  EXPECT_EQ(groups[1].device, 0);
  EXPECT_EQ(groups[1].ranks, Devices({1, 4}));
  EXPECT_EQ(groups[2].device, 2);
  EXPECT_EQ(groups[2].ranks, Devices({3}));
  EXPECT_TRUE(groupByDevice({}).empty());
  ASSERT_EQ(groupByDevice({3, 3, 3}).size(), 1u);
  EXPECT_EQ(groupByDevice({3, 3, 3})[0].ranks, Devices({0, 1, 2}));
}

TEST(CudaDeviceSetup, ModeFollowsPlacementAndProcesses) {
  EXPECT_EQ(deviceMode({0, 0, 0, 0}, false), DeviceMode::VirtualRanks);
  EXPECT_EQ(deviceMode({2}, false), DeviceMode::VirtualRanks);
  EXPECT_EQ(deviceMode({0, 1}, false), DeviceMode::PeerDevices);
  EXPECT_EQ(deviceMode({0, 0, 1, 1}, false), DeviceMode::PeerDevices);
  EXPECT_EQ(deviceMode({0, 0, 0, 1}, false), DeviceMode::PeerDevices);
  EXPECT_EQ(deviceMode({0, 1}, true), DeviceMode::IpcProcesses);
  EXPECT_EQ(deviceMode({0, 0}, true), DeviceMode::IpcProcesses);
  EXPECT_EQ(toString(DeviceMode::VirtualRanks), "virtual ranks");
  EXPECT_EQ(toString(DeviceMode::PeerDevices), "peer devices");
  EXPECT_EQ(toString(DeviceMode::IpcProcesses), "ipc processes");
}

/// A fake peer-access matrix that records what it was asked.
struct PeerMatrix {
  std::set<std::pair<int, int>> denied;
  std::vector<std::pair<int, int>> asked;
  std::function<bool(int, int)> predicate() {
    return [this](int from, int to) {
      asked.emplace_back(from, to);
      return denied.count({from, to}) == 0;
    };
  }
};

std::string peerError(const std::vector<int> &deviceOfRank, PeerMatrix &matrix) {
  try {
    checkPeerAccess(deviceOfRank, matrix.predicate());
  } catch (const RuntimeError &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "no peer-access error";
  return "";
}

TEST(CudaDeviceSetup, PeerAccessAsksEachOrderedPairOfDistinctDevicesOnce) {
  PeerMatrix matrix;
  checkPeerAccess({2, 0, 2, 1, 0}, matrix.predicate());
  const std::vector<std::pair<int, int>> expected = {{2, 0}, {2, 1}, {0, 2},
                                                     {0, 1}, {1, 2}, {1, 0}};
  EXPECT_EQ(matrix.asked, expected);
}

TEST(CudaDeviceSetup, PeerAccessOnOneDeviceAsksNothing) {
  PeerMatrix matrix;
  checkPeerAccess({1, 1, 1}, matrix.predicate());
  checkPeerAccess({}, matrix.predicate());
  EXPECT_TRUE(matrix.asked.empty());
}

TEST(CudaDeviceSetup, MissingPeerAccessNamesDevicesAndLowestRanks) {
  PeerMatrix matrix;
  matrix.denied = {{0, 1}};
  EXPECT_EQ(peerError({0, 0, 1, 1}, matrix),
            "ranks on device 0 cannot read device 1's memory (no peer access between them; "
            "cudaDeviceCanAccessPeer says no), so rank 0 cannot read rank 2's buffers: put "
            "those ranks on one device or on devices with peer access (nvidia-smi topo -m)");
  EXPECT_EQ(matrix.asked.size(), 1u);
}

TEST(CudaDeviceSetup, OneWayPeerAccessIsNotEnough) {
  PeerMatrix matrix;
  matrix.denied = {{3, 1}, {1, 2}};
  EXPECT_EQ(peerError({1, 2, 3, 3, 1}, matrix),
            "ranks on device 1 cannot read device 2's memory (no peer access between them; "
            "cudaDeviceCanAccessPeer says no), so rank 0 cannot read rank 1's buffers: put "
            "those ranks on one device or on devices with peer access (nvidia-smi topo -m)");
  matrix.denied = {{3, 1}};
  matrix.asked.clear();
  EXPECT_EQ(peerError({1, 2, 3, 3, 1}, matrix),
            "ranks on device 3 cannot read device 1's memory (no peer access between them; "
            "cudaDeviceCanAccessPeer says no), so rank 2 cannot read rank 0's buffers: put "
            "those ranks on one device or on devices with peer access (nvidia-smi topo -m)");
  const std::vector<std::pair<int, int>> expected = {{1, 2}, {1, 3}, {2, 1}, {2, 3}, {3, 1}};
  EXPECT_EQ(matrix.asked, expected);
}

}  // namespace
}  // namespace collplan::cuda
