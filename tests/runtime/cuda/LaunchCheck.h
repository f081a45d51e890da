// Checked calls of a plan for the tests of the plan kernel: through a LaunchGroup on any
// DeviceTarget (the GPU's memory or the host emulation's), and as a world of processes (CUDA IPC)
// emulated by threads.
#pragma once

#include "runtime/backends/cuda/LaunchGroup.h"
#include "tuner/measure/CheckData.h"

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace collplan::cuda::test {

/// How the check reads results back: a device-to-host copy, and a wait for the launch.
struct Readback {
  std::function<void(void *dst, const void *src, size_t bytes)> copyOut;
  std::function<void()> synchronize;
};

/// Where a rank's input lies: apart from its output, at the canonical in-place offset, or at
/// the output's start (in place but not canonical for kinds whose offset is not 0).
enum class Placement { OutOfPlace, InPlace, SameStart };

/// Device memory for the checked calls of one world, one buffer per rank kept from call to call
/// and grown when a call needs more: on a GPU, allocating and freeing per call (cudaFree waits for
/// the device) costs more than the call.
class CheckBuffers {
public:
  explicit CheckBuffers(DeviceTarget &target) : target_(target) {}
  ~CheckBuffers();
  CheckBuffers(const CheckBuffers &) = delete;
  CheckBuffers &operator=(const CheckBuffers &) = delete;

  DeviceTarget &target() { return target_; }
  /// Rank `rank`'s buffer of at least `bytes` (its contents are the caller's to fill).
  char *forRank(size_t rank, size_t bytes);

private:
  DeviceTarget &target_;
  std::vector<std::pair<void *, size_t>> ofRank_;
};

/// Runs `plan` once for `c` on every rank of `group` (buffers from `buffers`, the input filled
/// and the output poisoned by the bench's check data, placed as asked) and returns the wrong
/// elements over ranks. Throws what the launch recorded.
uint64_t runPlanChecked(CheckBuffers &buffers, LaunchGroup &group, const Readback &readback,
                        const Plan &plan, const measure::BenchCase &c, size_t count,
                        Placement placement);

/// Runs `plan` once for `c` on every rank, each rank a DeviceWorld of its own (mode IpcProcesses,
/// an asynchronous HostTarget, `stagingBytes` of arena) in its own thread, as processes would,
/// twice (the FIFO counters carry over), and returns the wrong elements over ranks. `job` names
/// the world's IPC board: unique per call. A rank's error fails the test, naming the rank.
uint64_t runAsProcesses(const measure::BenchCase &c, const Plan &plan, size_t count,
                        const std::string &job, size_t stagingBytes = 1 << 20);

}  // namespace collplan::cuda::test
