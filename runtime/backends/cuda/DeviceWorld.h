// DeviceWorld: the ranks this process holds of a cuda job, on their devices: one DeviceTarget and
// one LaunchGroup per device, and the FIFOs they share.
#pragma once

#include "runtime/backends/cuda/DeviceSetup.h"
#include "runtime/backends/cuda/IpcBoard.h"
#include "runtime/backends/cuda/LaunchGroup.h"
#include "runtime/exec/Wait.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace collplan::cuda {

/// The kernels' give-up time for `policy`: its timeout (COLLPLAN_TIMEOUT_S), or never for 0.
uint64_t deviceTimeoutNs(const WaitPolicy &policy);

/// Plan channels a world of processes has FIFOs for, per pair of ranks: each rank's arena holds
/// the FIFOs of every sender to it on each of these channels.
inline constexpr uint32_t kIpcChannels = 64;
/// COLLPLAN_CUDA_IPC_STAGING_BYTES, else 256 MiB: the staging arena of each rank of a world of
/// processes (the values it sends wait there for its peers).
size_t ipcStagingBytesFromEnv();

class DeviceWorld {
public:
  /// Opens the target of one device (CudaTarget in the backend, a host emulation in tests).
  using TargetFactory = std::function<std::unique_ptr<DeviceTarget>(int device)>;

  /// Every rank of the world in this process: rank r on device deviceOfRank[r] (assignDevices).
  /// Devices are opened in order of first use; FIFOs live on the first, which every other device
  /// reaches through peer access (enabled by the caller). Throws RuntimeError.
  DeviceWorld(std::vector<int> deviceOfRank, const TargetFactory &open, uint64_t timeoutNs);
  /// Rank `rank` of a world of `ranks` processes, one rank each, on `device`: its arena (its
  /// incoming FIFOs and `stagingBytes` of staging) is published on the job's IpcBoard and every
  /// peer's is mapped (DeviceTarget::openMemory). Every process of the job constructs it alike;
  /// a peer that does not within `policy.timeout` is named (RuntimeError(Timeout)). Its
  /// destruction waits (up to `policy.timeout`) until every process's world is being destroyed,
  /// so no arena is freed while a peer may read it: synchronize the streams first.
  DeviceWorld(int ranks, int rank, int device, const std::string &job, const TargetFactory &open,
              const WaitPolicy &policy, size_t stagingBytes);
  ~DeviceWorld();
  DeviceWorld(const DeviceWorld &) = delete;
  DeviceWorld &operator=(const DeviceWorld &) = delete;

  int ranks() const { return int(deviceOfRank_.size()); }
  int deviceOf(int rank) const { return deviceOfRank_[size_t(rank)]; }
  DeviceMode mode() const { return deviceMode(deviceOfRank_, localRank_ >= 0); }
  const std::vector<DeviceGroup> &groups() const { return groups_; }
  /// The index into groups() of `rank`'s device.
  size_t groupOf(int rank) const { return groupOfRank_[size_t(rank)]; }
  DeviceTarget &target(size_t group) { return *targets_[group]; }
  /// "8 virtual ranks on device 0 (NVIDIA H100 80GB HBM3)" / "4 ranks on 4 devices (peer
  /// devices): device 0 (...), ...".
  std::string describe() const;

  /// Enqueues one call on every rank, one launch per device: calls[r] is rank r's (device
  /// pointers), streams[g] the stream of groups()[g]. Never waits. Throws as
  /// LaunchGroup::enqueue, naming the device.
  void enqueue(const Plan &plan, const std::vector<CallBuffers> &calls,
               const std::vector<StreamHandle> &streams);
  /// Enqueues the calls of one device's ranks only (callsOfGroup in groups()[g].ranks order):
  /// the API's launches, whose ranks on other devices are enqueued by other calls.
  void enqueueGroup(size_t g, const Plan &plan, const std::vector<CallBuffers> &callsOfGroup,
                    StreamHandle stream);
  /// Throws the first failure a kernel of any device recorded.
  void checkFailure();

private:
  /// A world of processes: publishes this rank's arena, maps its peers', and opens the launch.
  void connectPeers(int ranks, int rank, int device, const std::string &job,
                    const WaitPolicy &policy, size_t fifoBytes, size_t stagingBytes);

  std::vector<int> deviceOfRank_;
  int localRank_ = -1;  ///< a world of processes: this process's rank; else -1
  std::vector<DeviceGroup> groups_;
  std::vector<size_t> groupOfRank_;
  std::vector<std::unique_ptr<DeviceTarget>> targets_;  ///< per group
  ConnectionTable table_;
  std::unique_ptr<FifoPlacement> fifos_;
  std::vector<std::unique_ptr<LaunchGroup>> launches_;  ///< per group
  void *arena_ = nullptr;               ///< a world of processes: this rank's FIFOs and staging
  std::vector<void *> peerMappings_;    ///< and its peers' arenas, mapped
  std::unique_ptr<IpcBoard> board_;     ///< where the ranks meet again before freeing them
  WaitPolicy policy_;
};

}  // namespace collplan::cuda
