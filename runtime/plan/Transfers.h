// The messages of a plan: which send reaches which recv (per sender, receiver and channel, in order).
#pragma once

#include "runtime/plan/Plan.h"

#include <vector>

namespace collplan {

/// One message: the k-th (`index`) from `sender` to `receiver` on `channel`, sent by
/// programs[sender].channels[channel].ops[send.op] (its sends[sendEntry]) and received by
/// programs[receiver].channels[channel].ops[recv.op].
struct PlanTransfer {
  int sender = 0;
  int receiver = 0;
  uint32_t channel = 0;
  uint32_t index = 0;
  OpRef send;
  uint32_t sendEntry = 0;
  OpRef recv;
};

/// A number for the FIFO of messages from `sender` to `receiver` on `channel`, unique among the
/// FIFOs of a plan of `ranks` ranks.
inline uint64_t fifoKey(int sender, int receiver, uint32_t channel, int ranks) {
  return (uint64_t(sender) * uint64_t(ranks) + uint64_t(receiver)) * kMaxChannels + channel;
}

/// Every message of `plan` whose two ends exist, FIFO by FIFO in (sender, receiver, channel)
/// order. Messages a plan sends but never receives (or the reverse) are left out: validatePlan
/// reports them. Requires every program (Plan::onlyRank < 0).
std::vector<PlanTransfer> planTransfers(const Plan &plan);

}  // namespace collplan
