// EmulatedJob: a DeviceJob over emulated devices (asynchronous HostTargets), timed by the host
// clock, so the device loop and the API's device calls run in tests without a GPU.
#pragma once

#include "HostTarget.h"

#include "runtime/backends/Backend.h"
#include "runtime/backends/cuda/DeviceWorld.h"

#include <chrono>
#include <cstring>

namespace collplan::cuda::test {

/// A DeviceJob over emulated devices (asynchronous HostTargets), timed by the host clock.
class EmulatedJob final : public DeviceJob {
public:
  explicit EmulatedJob(std::vector<int> deviceOfRank, uint64_t timeoutNs = 30'000'000'000ull)
      : world_(std::move(deviceOfRank),
               [this](int device) {
                 auto target = std::make_unique<HostTarget>(512, /*asynchronous=*/true);
                 targets_.push_back(target.get());
                 opened_.push_back(device);
                 return target;
               },
               timeoutNs),
        streams_(world_.groups().size(), nullptr) {}

  DeviceWorld &world() { return world_; }
  const std::vector<int> &opened() const { return opened_; }
  /// Launches so far on each device, in order of first use.
  std::vector<uint32_t> launches() const {
    std::vector<uint32_t> out;
    for (const HostTarget *target : targets_) out.push_back(target->launches());
    return out;
  }
  std::string describe() const override { return world_.describe(); }
  int ranks() const override { return world_.ranks(); }
  int deviceOf(int rank) const override { return world_.deviceOf(rank); }
  DeviceStream streamOf(int) const override { return nullptr; }
  void *allocate(int rank, size_t bytes) override {
    return world_.target(world_.groupOf(rank)).allocate(bytes);
  }
  void release(int rank, void *p) override { world_.target(world_.groupOf(rank)).release(p); }
  void copyIn(int, void *device, const void *host, size_t bytes) override {
    std::memcpy(device, host, bytes);
  }
  void copyOut(int, void *host, const void *device, size_t bytes) override {
    std::memcpy(host, device, bytes);
  }
  void enqueue(const Plan &plan, const std::vector<CallBuffers> &calls) override {
    world_.enqueue(plan, calls, streams_);
  }
  const std::vector<int> &ranksWith(int rank) const override {
    return world_.groups()[world_.groupOf(rank)].ranks;
  }
  void enqueueDevice(int rank, const Plan &plan, const std::vector<CallBuffers> &calls,
                     DeviceStream stream) override {
    world_.enqueueGroup(world_.groupOf(rank), plan, calls, stream);
  }
  /// The host emulation has no device clock: each call is timed from its enqueue to its end.
  std::vector<double> timeCalls(int calls, const std::function<void(int)> &call) override {
    std::vector<double> seconds;
    for (int i = 0; i < calls; ++i) {
      const auto start = std::chrono::steady_clock::now();
      call(i);
      synchronize();
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
  }
  void synchronize() override {
    for (HostTarget *target : targets_) target->synchronize();
    world_.checkFailure();
  }

private:
  std::vector<HostTarget *> targets_;
  std::vector<int> opened_;
  DeviceWorld world_;
  std::vector<StreamHandle> streams_;
};

}  // namespace collplan::cuda::test
