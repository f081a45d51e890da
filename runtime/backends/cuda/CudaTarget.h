// CudaTarget: a DeviceTarget on one CUDA device (memory, copies, the plan kernel's launches).
#pragma once

#include "runtime/backends/cuda/DeviceTarget.h"

#include <string>

namespace collplan::cuda {

/// Devices the CUDA runtime sees (0 when there is no driver or no GPU); `why` says why none.
int visibleDevices(std::string *why = nullptr);

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
  void release(void *p) override;
  void upload(void *dst, const void *src, size_t bytes) override;
  void copyAsync(void *dst, const void *src, size_t bytes, StreamHandle stream) override;
  DeviceError &errorRecord() override { return *error_; }
  uint32_t residentBlocks() const override { return residentBlocks_; }
  void launch(const LaunchArgs &args, uint32_t blocks, StreamHandle stream) override;

  /// Host-to-device and device-to-host copies that wait (the benchmark's set-up and checks).
  void copyIn(void *dst, const void *src, size_t bytes);
  void copyOut(void *dst, const void *src, size_t bytes);
  /// Waits for everything enqueued on `stream`.
  void synchronize(StreamHandle stream);

private:
  /// Makes this target's device current; throws naming `what` when a CUDA call fails.
  void select() const;
  void check(int status, const std::string &what) const;

  int device_;
  std::string description_;
  uint32_t residentBlocks_ = 0;
  DeviceError *error_ = nullptr;  ///< mapped pinned host memory (one address on both sides)
  void *lastEvent_ = nullptr;     ///< cudaEvent_t recorded after the last launch
  StreamHandle lastStream_ = nullptr;
  bool launched_ = false;
};

}  // namespace collplan::cuda
