// The cuda backend's registry entry and its DeviceJob: plans run as kernels on CUDA devices.
#include "runtime/backends/cuda/CudaBackend.h"

#include "runtime/backends/Backend.h"
#include "runtime/backends/cuda/CudaTarget.h"
#include "runtime/backends/cuda/NcclCollectives.h"

#include <algorithm>
#include <cstdlib>

namespace collplan {
namespace cuda {
namespace {

const char *deviceSpec() {
  const char *spec = std::getenv(kDevicesVariable);
  return spec ? spec : "";
}

/// Every rank of a job in this process, timed and checked by the benchmark loop: one stream of
/// its own per device.
class CudaJob final : public DeviceJob {
public:
  explicit CudaJob(std::unique_ptr<DeviceWorld> world) : world_(std::move(world)) {
    for (size_t g = 0; g < world_->groups().size(); ++g) {
      streams_.push_back(std::make_unique<CudaStream>(cudaTarget(g)));
      handles_.push_back(streams_.back()->handle());
    }
  }

  std::string describe() const override { return world_->describe(); }
  int ranks() const override { return world_->ranks(); }
  int deviceOf(int rank) const override { return world_->deviceOf(rank); }
  DeviceStream streamOf(int rank) const override { return handles_[world_->groupOf(rank)]; }
  void *allocate(int rank, size_t bytes) override {
    return world_->target(world_->groupOf(rank)).allocate(bytes);
  }
  void release(int rank, void *p) override { world_->target(world_->groupOf(rank)).release(p); }
  void copyIn(int rank, void *device, const void *host, size_t bytes) override {
    cudaTarget(world_->groupOf(rank)).copyIn(device, host, bytes);
  }
  void copyOut(int rank, void *host, const void *device, size_t bytes) override {
    cudaTarget(world_->groupOf(rank)).copyOut(host, device, bytes);
  }
  void enqueue(const Plan &plan, const std::vector<CallBuffers> &calls) override {
    world_->enqueue(plan, calls, handles_);
  }
  const std::vector<int> &ranksWith(int rank) const override {
    return world_->groups()[world_->groupOf(rank)].ranks;
  }
  void enqueueDevice(int rank, const Plan &plan, const std::vector<CallBuffers> &calls,
                     DeviceStream stream) override {
    world_->enqueueGroup(world_->groupOf(rank), plan, calls, stream);
  }
  std::vector<double> timeCalls(int calls, const std::function<void(int)> &call) override {
    for (int i = 0; i < calls; ++i) {
      for (const auto &stream : streams_) stream->mark(size_t(i));
      call(i);
    }
    for (const auto &stream : streams_) stream->mark(size_t(calls));
    std::vector<double> seconds(size_t(std::max(calls, 0)), 0.0);
    for (const auto &stream : streams_)
      for (int i = 0; i < calls; ++i)
        seconds[size_t(i)] =
            std::max(seconds[size_t(i)], stream->secondsBetween(size_t(i), size_t(i) + 1));
    world_->checkFailure();
    return seconds;
  }
  void synchronize() override {
    for (const auto &stream : streams_) stream->synchronize();
    world_->checkFailure();
  }

private:
  CudaTarget &cudaTarget(size_t group) { return static_cast<CudaTarget &>(world_->target(group)); }

  std::unique_ptr<DeviceWorld> world_;
  std::vector<std::unique_ptr<CudaStream>> streams_;  ///< per device group
  std::vector<DeviceStream> handles_;
};

[[noreturn]] void refuseHostRanks(const char *what) {
  throw RuntimeError(ErrorCode::Unsupported,
                     std::string("the cuda backend cannot ") + what +
                         ": its ranks' buffers are device memory and its calls go on CUDA "
                         "streams (collplan_cuda.h; plan-bench and plan-tune --backend cuda)");
}

class CudaBackend final : public Backend {
public:
  std::string_view name() const override { return "cuda"; }
  std::string_view summary() const override {
    return "plans run as kernels on CUDA devices (COLLPLAN_CUDA_DEVICES: every rank on device 0 "
           "by default, or one device per rank)";
  }
  /// A kernel launch and the event that times it.
  double launchOverheadUs() const override { return 10; }
  BackendKind kind() const override { return BackendKind::Devices; }
  std::unique_ptr<Job> openJob(const JobOptions &) const override {
    refuseHostRanks("open a job of host transports");
  }
  std::vector<std::string> launch(int, const RankBody &) const override {
    refuseHostRanks("run ranks on host threads");
  }
  /// NCCL's, the baseline plan-bench times beside the plans.
  const NativeCollectives *nativeCollectives() const override { return &ncclCollectives(); }
  std::unique_ptr<DeviceJob> openDeviceJob(int ranks) const override {
    return std::make_unique<CudaJob>(openCudaWorld(ranks, defaultWaitPolicy()));
  }
  std::unique_ptr<DeviceJob> openDeviceRank(const JobOptions &o) const override {
    if (o.job.empty())
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "a cuda world of processes needs a job name (collplan_config_t::shm_job) "
                         "that every process of the job shares");
    return std::make_unique<CudaJob>(openCudaRank(o.ranks, o.rank, o.job, o.policy));
  }
};

}  // namespace

namespace {

/// The devices this process sees; RuntimeError(Unsupported) with the CUDA runtime's reason when
/// there are none.
int usableDevices() {
  std::string why;
  const int devices = visibleDevices(&why);
  if (devices == 0)
    throw RuntimeError(ErrorCode::Unsupported, "the cuda backend found no usable device: " + why);
  return devices;
}

std::unique_ptr<DeviceTarget> openTarget(int device) {
  return std::make_unique<CudaTarget>(device);
}

}  // namespace

std::unique_ptr<DeviceWorld> openCudaWorld(int ranks, const WaitPolicy &policy) {
  std::vector<int> deviceOfRank = assignDevices(ranks, -1, usableDevices(), deviceSpec());
  if (deviceMode(deviceOfRank, false) == DeviceMode::PeerDevices) enablePeerAccess(deviceOfRank);
  return std::make_unique<DeviceWorld>(std::move(deviceOfRank), openTarget,
                                       deviceTimeoutNs(policy));
}

std::unique_ptr<DeviceWorld> openCudaRank(int ranks, int rank, const std::string &job,
                                          const WaitPolicy &policy) {
  const int device = assignDevices(ranks, rank, usableDevices(), deviceSpec())[size_t(rank)];
  return std::make_unique<DeviceWorld>(ranks, rank, device, job, openTarget, policy,
                                       ipcStagingBytesFromEnv());
}

}  // namespace cuda

const Backend &cudaBackend() {
  static const cuda::CudaBackend backend;
  return backend;
}

}  // namespace collplan
