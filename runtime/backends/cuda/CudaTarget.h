// CudaTarget: a DeviceTarget on one CUDA device (memory, copies, the plan kernel's launches).
#pragma once

#include "runtime/backends/cuda/DeviceTarget.h"

#include <string>
#include <vector>

namespace collplan::cuda {

/// Devices the CUDA runtime sees (0 when there is no driver or no GPU); `why` says why none.
int visibleDevices(std::string *why = nullptr);

/// Lets every device of `deviceOfRank` read the memory of every other one it uses
/// (cudaDeviceEnablePeerAccess), after checkPeerAccess has named any pair that cannot.
/// Throws RuntimeError.
void enablePeerAccess(const std::vector<int> &deviceOfRank);

class CudaTarget final : public DeviceTarget {
public:
  /// Opens device `device`. Throws RuntimeError(Unsupported) when it cannot be used.
  explicit CudaTarget(int device);
  ~CudaTarget() override;
  CudaTarget(const CudaTarget &) = delete;
  CudaTarget &operator=(const CudaTarget &) = delete;

  int device() const { return device_; }
  std::string describe() const override { return description_; }
  void *allocate(size_t bytes) override;
  void release(void *p) noexcept override;
  void upload(void *dst, const void *src, size_t bytes) override;
  void copyAsync(void *dst, const void *src, size_t bytes, StreamHandle stream) override;
  DeviceError &errorRecord() override { return *error_; }
  uint32_t residentBlocks() const override { return residentBlocks_; }
  bool launch(const LaunchArgs &args, uint32_t blocks, StreamHandle stream) override;
  IpcHandle exportMemory(void *p) override;
  void *openMemory(const IpcHandle &handle) override;
  void closeMemory(void *mapped) override;

  /// Host-to-device and device-to-host copies that wait (the benchmark's set-up and checks).
  void copyIn(void *dst, const void *src, size_t bytes);
  void copyOut(void *dst, const void *src, size_t bytes);
  /// Waits for everything enqueued on `stream`.
  void synchronize(StreamHandle stream);

private:
  /// Makes this target's device current until the returned guard goes, which restores the
  /// caller's (a collective call leaves the thread's current device as it found it).
  class Selected {
  public:
    explicit Selected(int previous) : previous_(previous) {}
    ~Selected();
    Selected(const Selected &) = delete;
    Selected &operator=(const Selected &) = delete;

  private:
    int previous_;
  };
  [[nodiscard]] Selected select() const;
  void check(int status, const std::string &what) const;
  friend class CudaStream;

  int device_;
  std::string description_;
  uint32_t residentBlocks_ = 0;
  DeviceError *error_ = nullptr;  ///< mapped pinned host memory (one address on both sides)
  void *lastEvent_ = nullptr;     ///< cudaEvent_t recorded after the last launch
  StreamHandle lastStream_ = nullptr;
  bool launched_ = false;
};

}  // namespace collplan::cuda

namespace collplan::cuda {

/// A non-blocking stream of its own on one device, with the events that time calls on it.
class CudaStream {
public:
  explicit CudaStream(CudaTarget &target);
  ~CudaStream();
  CudaStream(const CudaStream &) = delete;
  CudaStream &operator=(const CudaStream &) = delete;

  StreamHandle handle() const { return stream_; }
  /// Records timing event `mark` (0, 1, ...; created on first use) on the stream; no wait.
  void mark(size_t mark);
  /// Waits for event `to` and returns the seconds between events `from` and `to`.
  double secondsBetween(size_t from, size_t to);
  /// Waits for everything enqueued on the stream.
  void synchronize();

private:
  CudaTarget &target_;
  StreamHandle stream_ = nullptr;
  std::vector<void *> events_;  ///< cudaEvent_t, by mark
};

}  // namespace collplan::cuda
