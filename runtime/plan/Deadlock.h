// The static deadlock check of a plan's channels under the execution model of Plan.h.
#pragma once

#include "runtime/plan/Plan.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collplan {

/// What a stuck channel waits for.
enum class WaitKind : uint8_t {
  Message,  ///< its recv's message from `peer` (on the same channel) was never sent
  Room,     ///< kChannelDepth messages to `peer` on its channel are unconsumed
  Channel,  ///< an op it names in `after` (on channel `peerChannel` of its rank) never finishes
};

/// A channel that can never finish: it is blocked at channels[channel].ops[op].
struct StuckChannel {
  int rank = 0;
  uint32_t channel = 0;
  uint32_t op = 0;
  WaitKind waits = WaitKind::Message;
  int peer = 0;              ///< Message, Room: the other rank; Channel: this rank
  uint32_t peerChannel = 0;  ///< the channel it waits on (the same one for Message and Room)
  uint32_t peerOp = 0;       ///< Channel: the op it waits for
};

struct DeadlockReport {
  std::vector<StuckChannel> stuck;  ///< every channel that cannot finish, by rank then channel
  /// Channels waiting on each other in a circle (indices into `stuck`); empty when the chain of
  /// waits ends at a channel that finished without what was awaited (a message never sent).
  std::vector<size_t> cycle;
  int totalRanks = 0;

  bool deadlockFree() const { return stuck.empty(); }
  /// The first stuck channel of the cycle, or the first stuck channel. Requires !deadlockFree().
  const StuckChannel &first() const;
  /// "deadlock: 2 of 4 ranks cannot finish: rank 0 waits at channels[0].ops[3] for a message
  /// from rank 1; ... (cycle: rank 0 -> rank 1 -> rank 0)", listing at most 8 channels.
  std::string describe() const;
};

/// Runs every channel of every rank under the execution model of Plan.h until nothing can move:
/// an op runs once its `after` ops have finished, its recv's message has been sent (transfers
/// matched per sender, receiver and channel in order) and each of its sends finds fewer than
/// kChannelDepth unconsumed messages on its (peer, channel). A chain of recv_reduce ops the
/// executors fuse into one pass (fusedChainLengths) runs as one step, as they run it: once every
/// message of the chain is in and its sends have room, so the check decides what runs. Whether every channel finishes
/// does not depend on the order in which ready ops run (each FIFO has one writer and one
/// reader, and a ready op stays ready), so one run decides it. O(total ops + sends).
/// Requires a plan with every program (Plan::onlyRank < 0) whose peers and `after` references
/// are in range (validatePlan checks them first). A plan with `symmetry`, whose programs must
/// hold it (validatePlan checks that first), runs rank 0's program alone in lockstep with its
/// images, in O(rank 0's ops); only one that stalls so runs every rank, for the report.
DeadlockReport checkDeadlockFree(const Plan &plan);

/// checkDeadlockFree's run of a symmetric plan: whether rank 0's program, in lockstep with its
/// images under `plan.symmetry`, finishes (false for a plan without symmetry).
bool symmetricRunCompletes(const Plan &plan);

}  // namespace collplan
