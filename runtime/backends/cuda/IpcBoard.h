// IpcBoard: the shared-memory board where a cuda job's processes exchange their CUDA IPC handles.
#pragma once

#include "runtime/backends/cpu/ProcessLiveness.h"
#include "runtime/backends/cpu/ShmSegment.h"
#include "runtime/backends/cuda/DeviceTarget.h"
#include "runtime/exec/Wait.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collplan::cuda {

/// What one rank publishes about the device memory its peers map.
struct IpcEntry {
  int32_t device = -1;  ///< the rank's device
  ProcessId process;    ///< the rank's process (thisProcess())
  uint64_t arenaBytes = 0;
  uint8_t handle[kIpcHandleBytes] = {};  ///< cudaIpcGetMemHandle of the rank's arena
};

/// The board of one job in mode IpcProcesses (one rank per process, each on its own device):
/// a 0600 shared-memory object "/collplan-<job>-cuda-ipc" holding a header and one entry per
/// rank. Rank 0 creates it; the others open it, waiting for it to appear. Each rank publishes
/// its entry once, then waits for everybody's; rank 0 removes the name once every entry is
/// ready (or when its board is destroyed before that), so a job leaves nothing in /dev/shm.
class IpcBoard {
public:
  /// The board of `job` for rank `rank` of `ranks`. Rank 0 creates the object and throws
  /// RuntimeError(InvalidArgument) when it already exists; another rank waits under `policy`
  /// for rank 0 to create it (RuntimeError(Timeout) past policy.timeout) and throws
  /// RuntimeError(InvalidArgument) naming both counts when it was made for another rank count.
  /// A job name is 1 to 200 letters, digits, '.', '_' or '-'.
  static IpcBoard open(const std::string &job, int ranks, int rank,
                       const WaitPolicy &policy = defaultWaitPolicy());

  IpcBoard(IpcBoard &&other) noexcept;
  IpcBoard &operator=(IpcBoard &&other) noexcept;
  IpcBoard(const IpcBoard &) = delete;
  IpcBoard &operator=(const IpcBoard &) = delete;
  ~IpcBoard() { removeName(); }

  /// Writes this rank's entry and marks it ready (release). Once per rank: a second publish,
  /// from this board or from another process started as the same rank, throws
  /// RuntimeError(InvalidArgument).
  void publish(const IpcEntry &mine);

  /// Every rank's entry, by rank, once all are ready. Past policy.timeout (counted from the
  /// call) throws RuntimeError(Timeout) naming the ranks that did not publish; policy.check
  /// runs while it waits. On rank 0 it then removes the object's name (mappings stay valid).
  std::vector<IpcEntry> waitForAll(const WaitPolicy &policy) const;

  /// Marks this rank as leaving the job and waits, under `policy`, until every rank has: no
  /// rank frees the memory it published while a peer may still use it. A rank whose process
  /// has died counts as left (looked up about every 100 ms), so peers of a crashed rank do not
  /// wait out the timeout. False when the wait timed out (then the caller frees anyway). The
  /// board stays mapped after waitForAll, so this works once the name is gone. Once per rank.
  bool leave(const WaitPolicy &policy) const noexcept;

  /// "/collplan-<job>-cuda-ipc": the object's name (under /dev/shm).
  static std::string objectName(const std::string &job);

  const std::string &job() const { return job_; }
  int ranks() const { return ranks_; }
  int rank() const { return rank_; }

private:
  IpcBoard(ShmSegment segment, std::string job, int ranks, int rank);
  static IpcBoard create(const std::string &job, int ranks);
  static IpcBoard attach(const std::string &job, int ranks, int rank, const WaitPolicy &policy);
  /// On rank 0, removes the object's name if it has not yet.
  void removeName() const noexcept;

  ShmSegment segment_;
  std::string job_;
  int ranks_ = 0;
  int rank_ = 0;
  mutable bool nameRemoved_ = false;
};

}  // namespace collplan::cuda
