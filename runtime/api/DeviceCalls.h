// DeviceCalls: the calls of a device world's ranks, gathered per device and launched together.
#pragma once

#include "runtime/backends/Backend.h"

#include <map>
#include <mutex>
#include <vector>

namespace collplan {

/// A device runs the calls of all its ranks in one launch, so each rank's call waits here until
/// every rank of its device has made its call; the last one launches them, on the stream they
/// were made on. Threads may make the calls of different ranks.
class DeviceCalls {
public:
  explicit DeviceCalls(DeviceJob &job) : job_(job) {}

  /// Rank `rank`'s next call: `plan` (the world's, one object for every rank) with `call`'s
  /// device buffers, on `stream`. Throws RuntimeError(InvalidArgument) when the rank already has
  /// a call waiting for its device's other ranks, or when its call, plan or stream differs from
  /// theirs; and what the launch throws.
  void submit(int rank, const Plan &plan, const CallBuffers &call, DeviceStream stream);
  /// Throws RuntimeError(InvalidArgument) naming the ranks whose calls wait for ranks of their
  /// device that made none (collplan_group_end's check).
  void checkComplete() const;

private:
  /// The calls one device has so far.
  struct Pending {
    const Plan *plan = nullptr;
    DeviceStream stream = nullptr;
    std::vector<CallBuffers> calls;  ///< in ranksWith order
    std::vector<bool> made;
  };

  DeviceJob &job_;
  mutable std::mutex mutex_;
  std::map<int, Pending> pending_;  ///< by the device's lowest rank
};

}  // namespace collplan
