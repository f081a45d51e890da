// HostTarget: the cuda backend's DeviceTarget emulated on the host (blocks as threads, one
// thread per block), so the lowering, the launch logic and the kernel's protocol run in tests
// without a GPU.
#pragma once

#include "runtime/backends/cuda/DeviceTarget.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <thread>
#include <vector>

namespace collplan::cuda::test {

class HostTarget final : public DeviceTarget {
public:
  /// `asynchronous`: a launch returns while its blocks run, as on a device, so launches of
  /// several targets run together; the next copy or launch of this target, or synchronize(),
  /// waits for it (the order of one stream). Otherwise a launch runs to completion.
  explicit HostTarget(uint32_t residentBlocks = 512, bool asynchronous = false)
      : resident_(residentBlocks), asynchronous_(asynchronous) {}
  ~HostTarget() override;
  std::string describe() const override { return "host emulation"; }
  void *allocate(size_t bytes) override;
  /// Aborts, naming the address, on memory it did not allocate (a double free): the device's
  /// release cannot throw, and a double free must not pass unnoticed.
  void release(void *p) noexcept override;
  void upload(void *dst, const void *src, size_t bytes) override;
  void copyAsync(void *dst, const void *src, size_t bytes, StreamHandle) override;
  DeviceError &errorRecord() override { return error_; }
  uint32_t residentBlocks() const override { return resident_; }
  bool launch(const LaunchArgs &args, uint32_t blocks, StreamHandle) override;
  /// Makes later launches report that they were captured into a CUDA graph, as a stream under
  /// cudaStreamBeginCapture does.
  void setCapturing(bool capturing) { capturing_ = capturing; }
  /// In-process "IPC": memory is a shared mapping, its handle the address and size, and opening
  /// it maps the same pages at another address (as a peer process sees them).
  IpcHandle exportMemory(void *p) override;
  void *openMemory(const IpcHandle &handle) override;
  void closeMemory(void *mapped) override;
  /// Waits for the launch still running, if any.
  void synchronize();

  size_t liveAllocations() const { return live_.size(); }
  /// Makes every later allocation of more than `bytes` fail as a device out of memory does.
  void failAllocationsOver(size_t bytes) { allocationLimit_ = bytes; }
  uint32_t launches() const { return launches_; }
  /// The arguments of the last launch (the buffers a captured graph would replay with).
  const LaunchArgs &lastLaunch() const { return running_; }
  /// Whether `p` is memory from allocate() not yet released.
  bool isLive(const void *p) const { return live_.count(const_cast<void *>(p)) != 0; }

private:
  uint32_t resident_;
  bool asynchronous_;
  LaunchArgs running_{};  ///< the arguments the running blocks read
  std::vector<std::thread> blocks_;
  DeviceError error_{};
  struct Mapping {
    void *address = nullptr;
    size_t bytes = 0;
  };
  std::map<void *, size_t> live_;  ///< bytes mapped
  std::map<void *, size_t> opened_;
  uint32_t launches_ = 0;
  size_t allocationLimit_ = SIZE_MAX;
  bool capturing_ = false;
};

}  // namespace collplan::cuda::test
