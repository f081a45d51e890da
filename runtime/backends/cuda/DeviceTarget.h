// DeviceTarget: what the cuda backend needs of one device (memory, copies, kernel launches),
// behind an interface so the host-side logic runs on a host emulation in tests without a GPU.
#pragma once

#include "runtime/backends/cuda/DeviceProgram.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace collplan::cuda {

/// A stream of the device's API (cudaStream_t), kept opaque so no header here needs CUDA's.
using StreamHandle = void *;

/// Bytes of a handle that lets another process map device memory: sizeof(cudaIpcMemHandle_t),
/// which CUDA fixes at 64. Opaque bytes, so headers here stay free of CUDA's.
inline constexpr size_t kIpcHandleBytes = 64;
struct IpcHandle {
  uint8_t bytes[kIpcHandleBytes] = {};
};

class DeviceTarget {
public:
  virtual ~DeviceTarget() = default;
  /// "device 0 (NVIDIA H100 80GB HBM3)", for error messages.
  virtual std::string describe() const = 0;
  /// Zero-filled device memory. Throws RuntimeError(System) naming the device when out of it.
  virtual void *allocate(size_t bytes) = 0;
  /// Frees memory from allocate() once the device's work so far is done (as cudaFree waits).
  /// Never throws (destructors call it): freeing fails only on a device that is already broken,
  /// and the call that broke it reported why.
  virtual void release(void *p) noexcept = 0;
  /// Copies host memory to the device and waits (set-up only, never inside a call).
  virtual void upload(void *dst, const void *src, size_t bytes) = 0;
  /// Device-to-device copy enqueued on `stream`.
  virtual void copyAsync(void *dst, const void *src, size_t bytes, StreamHandle stream) = 0;
  /// The record kernels write their failure to, readable by the host at any time.
  virtual DeviceError &errorRecord() = 0;
  /// Blocks of the kernel that can be resident at once: a launch's blocks wait for each other,
  /// so they must all run together.
  virtual uint32_t residentBlocks() const = 0;
  /// Enqueues the kernel with `blocks` blocks on `stream`, after whatever the previous launch
  /// of this target was enqueued behind (launches of one world never overlap). Returns whether
  /// the launch was captured into a CUDA graph (which replays it later with its buffers).
  virtual bool launch(const LaunchArgs &args, uint32_t blocks, StreamHandle stream) = 0;

  /// Processes that each hold one rank (CUDA IPC): the handle of memory from allocate() that
  /// another process opens, the mapping of a peer's handle in this process, and its release.
  /// Throw RuntimeError naming the device when the device or driver refuses.
  virtual IpcHandle exportMemory(void *p) = 0;
  virtual void *openMemory(const IpcHandle &handle) = 0;
  virtual void closeMemory(void *mapped) = 0;
};

}  // namespace collplan::cuda
