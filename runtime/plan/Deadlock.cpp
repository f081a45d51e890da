// checkDeadlockFree: run every channel until nothing can move, then explain what is stuck.
#include "runtime/plan/Deadlock.h"

#include "runtime/plan/FusedChains.h"
#include "runtime/plan/Symmetry.h"
#include "runtime/plan/Transfers.h"

#include <algorithm>
#include <unordered_map>

namespace collplan {
namespace {

/// The sends of `op` to `peer`: all of them need room in that one FIFO at once.
uint64_t sendsTo(const PlanOp &op, int32_t peer) {
  return uint64_t(std::count(op.sends.begin(), op.sends.end(), peer));
}

class DeadlockRun {
public:
  explicit DeadlockRun(const Plan &plan) : plan_(plan) {
    const int ranks = plan.ranks;
    for (int r = 0; r < ranks; ++r) {
      channelBase_.push_back(uint32_t(pc_.size()));
      std::vector<std::vector<uint32_t>> chains = fusedChainLengths(plan.programs[size_t(r)]);
      for (uint32_t c = 0; c < plan.programs[size_t(r)].channels.size(); ++c) {
        pc_.push_back(0);
        owner_.push_back({r, c});
        chainLength_.push_back(std::move(chains[c]));
      }
    }
    channelBase_.push_back(uint32_t(pc_.size()));
    progressWaiters_.resize(pc_.size());
    // Number the FIFOs every send and recv uses, once: the run looks them up by op.
    opFifos_.resize(pc_.size());
    for (uint32_t ch = 0; ch < pc_.size(); ++ch) {
      const auto [r, c] = owner_[ch];
      for (const PlanOp &op : opsOf(ch)) {
        opFifos_[ch].push_back({op.recv ? fifo(*op.recv, r, c) : kNoFifo,
                                uint32_t(sendFifos_.size())});
        for (int32_t q : op.sends) sendFifos_.push_back(fifo(r, q, c));
      }
    }
  }

  DeadlockReport run() {
    for (uint32_t ch = 0; ch < pc_.size(); ++ch) work_.push_back(ch);
    while (!work_.empty()) {
      const uint32_t ch = work_.back();
      work_.pop_back();
      advance(ch);
    }
    return report();
  }

private:
  struct Fifo {
    uint64_t sent = 0, consumed = 0;
    std::vector<uint32_t> waitMessage, waitRoom;  ///< channels blocked on it
  };
  struct Owner {
    int rank;
    uint32_t channel;
  };
  static constexpr uint32_t kNoFifo = ~uint32_t(0);
  /// The FIFOs of one op: the one it receives from (kNoFifo: none), and where the FIFOs of its
  /// sends start in sendFifos_ (one per entry of `sends`).
  struct OpFifos {
    uint32_t recv;
    uint32_t firstSend;
  };
  Fifo &recvFifo(uint32_t ch, size_t op) { return fifos_[opFifos_[ch][op].recv]; }
  Fifo &sendFifo(uint32_t ch, size_t op, size_t k) {
    return fifos_[sendFifos_[opFifos_[ch][op].firstSend + k]];
  }

  uint32_t fifo(int sender, int receiver, uint32_t channel) {
    auto [it, fresh] = fifoIndex_.emplace(fifoKey(sender, receiver, channel, plan_.ranks),
                                          uint32_t(fifos_.size()));
    if (fresh) fifos_.emplace_back();
    return it->second;
  }
  uint32_t channelId(int rank, uint32_t channel) const { return channelBase_[size_t(rank)] + channel; }
  const std::vector<PlanOp> &opsOf(uint32_t ch) const {
    return plan_.programs[size_t(owner_[ch].rank)].channels[owner_[ch].channel].ops;
  }

  void wake(std::vector<uint32_t> &waiters) {
    work_.insert(work_.end(), waiters.begin(), waiters.end());
    waiters.clear();
  }

  /// Runs channel `ch` until its next step cannot run; registers it with what it waits for. A
  /// step is one op, or a fused chain of ops (fusedChainLengths) run together as the executors
  /// run them: once every message of the chain is in and its sends have room.
  void advance(uint32_t ch) {
    const int rank = owner_[ch].rank;
    const std::vector<PlanOp> &ops = opsOf(ch);
    while (pc_[ch] < ops.size()) {
      const size_t first = pc_[ch], last = first + chainLength_[ch][first];
      if (!ready(ops, first, last, rank, ch)) return;
      for (size_t i = first; i < last; ++i) {
        const PlanOp &op = ops[i];
        if (op.recv) {
          Fifo &f = recvFifo(ch, i);
          ++f.consumed;
          wake(f.waitRoom);
        }
        for (size_t k = 0; k < op.sends.size(); ++k) {
          Fifo &f = sendFifo(ch, i, k);
          ++f.sent;
          wake(f.waitMessage);
        }
      }
      pc_[ch] = last;
      wake(progressWaiters_[ch]);
    }
  }

  /// Whether ops [first, last) of a channel can run now as one step (only the first may name
  /// `after` ops; the ops of a chain receive from distinct peers); when not, registers `ch`
  /// where it will be woken.
  bool ready(const std::vector<PlanOp> &ops, size_t first, size_t last, int rank, uint32_t ch) {
    for (const OpRef &dep : ops[first].after) {
      const uint32_t other = channelId(rank, dep.channel);
      if (pc_[other] <= dep.op) {
        progressWaiters_[other].push_back(ch);
        return false;
      }
    }
    for (size_t i = first; i < last; ++i)
      if (ops[i].recv) {
        Fifo &f = recvFifo(ch, i);
        if (f.sent <= f.consumed) {
          f.waitMessage.push_back(ch);
          return false;
        }
      }
    for (size_t i = first; i < last; ++i)
      if (!roomToSend(ops[i], i, ch)) return false;
    return true;
  }

  /// Whether each send of `op` (op `index` of `ch`) finds room on its (peer, channel); when
  /// not, registers `ch`.
  bool roomToSend(const PlanOp &op, size_t index, uint32_t ch) {
    for (size_t k = 0; k < op.sends.size(); ++k) {
      Fifo &f = sendFifo(ch, index, k);
      if (f.sent - f.consumed + sendsTo(op, op.sends[k]) > kChannelDepth) {
        f.waitRoom.push_back(ch);
        return false;
      }
    }
    return true;
  }

  /// What the step at `pc` of `ch` waits for (the first condition that does not hold), at the
  /// op of the step that waits.
  StuckChannel stuckAt(uint32_t ch) {
    const auto [rank, channel] = owner_[ch];
    const std::vector<PlanOp> &ops = opsOf(ch);
    const size_t first = pc_[ch], last = first + chainLength_[ch][first];
    StuckChannel s{rank, channel, uint32_t(first), WaitKind::Message, rank, channel, 0};
    for (const OpRef &dep : ops[first].after)
      if (pc_[channelId(rank, dep.channel)] <= dep.op) {
        s.waits = WaitKind::Channel;
        s.peerChannel = dep.channel;
        s.peerOp = dep.op;
        return s;
      }
    for (size_t i = first; i < last; ++i)
      if (ops[i].recv) {
        const Fifo &f = fifos_[fifo(*ops[i].recv, rank, channel)];
        if (f.sent <= f.consumed) {
          s.op = uint32_t(i);
          s.peer = *ops[i].recv;
          return s;
        }
      }
    s.waits = WaitKind::Room;
    for (size_t i = first; i < last; ++i)
      for (int32_t q : ops[i].sends) {
        const Fifo &f = fifos_[fifo(rank, q, channel)];
        if (f.sent - f.consumed >= kChannelDepth) {
          s.op = uint32_t(i);
          s.peer = q;
        }
      }
    return s;
  }

  DeadlockReport report() {
    DeadlockReport out;
    out.totalRanks = plan_.ranks;
    std::vector<int> stuckIndex(pc_.size(), -1);
    for (uint32_t ch = 0; ch < pc_.size(); ++ch) {
      if (pc_[ch] == opsOf(ch).size()) continue;
      stuckIndex[ch] = int(out.stuck.size());
      out.stuck.push_back(stuckAt(ch));
    }
    if (out.stuck.empty()) return out;
    // Each stuck channel waits on one channel: follow the chain from the first until it repeats
    // (a cycle) or reaches a channel that finished.
    std::vector<int> visited(pc_.size(), -1);
    std::vector<size_t> chain;
    const StuckChannel *s = &out.stuck.front();
    uint32_t ch = channelId(s->rank, s->channel);
    while (stuckIndex[ch] >= 0 && visited[ch] < 0) {
      visited[ch] = int(chain.size());
      chain.push_back(size_t(stuckIndex[ch]));
      s = &out.stuck[size_t(stuckIndex[ch])];
      if (s->peerChannel >= plan_.programs[size_t(s->peer)].channels.size()) break;
      ch = channelId(s->peer, s->peerChannel);
    }
    if (stuckIndex[ch] >= 0 && visited[ch] >= 0)
      out.cycle.assign(chain.begin() + visited[ch], chain.end());
    return out;
  }

  const Plan &plan_;
  std::vector<size_t> pc_;              ///< per channel (all ranks): ops finished
  std::vector<std::vector<uint32_t>> chainLength_;  ///< per channel, per op: fusedChainLengths
  std::vector<Owner> owner_;            ///< per channel: its rank and index
  std::vector<uint32_t> channelBase_;   ///< per rank: its first channel id
  std::vector<std::vector<uint32_t>> progressWaiters_;  ///< per channel: waiting on its progress
  std::unordered_map<uint64_t, uint32_t> fifoIndex_;
  std::vector<Fifo> fifos_;
  std::vector<std::vector<OpFifos>> opFifos_;  ///< per channel, per op
  std::vector<uint32_t> sendFifos_;            ///< the FIFOs of every op's sends, in order
  std::vector<uint32_t> work_;
};

/// Rank 0's program run in lockstep with every other rank's, each rank 0's image under the
/// plan's symmetry, so one rank's state stands for all: the messages rank p has sent rank 0
/// are those rank 0 has sent σ_p⁻¹(0), and what rank q has taken of rank 0's are those rank 0
/// has taken from σ_q⁻¹(0). A rank's step fills only its own FIFOs and drains only its own,
/// so it never stops another's: when rank 0's next step can run, every rank's can, and running
/// them all is a step of one execution of the plan. Every execution ends in the same state
/// (checkDeadlockFree), so this one completes exactly when the plan is deadlock-free.
/// O(rank 0's ops × passes over its channels).
class SymmetricRun {
public:
  explicit SymmetricRun(const Plan &plan)
      : plan_(plan), base_(plan.programs[0]), chains_(fusedChainLengths(base_)),
        pc_(base_.channels.size(), 0),
        sentTo_(size_t(plan.ranks) * base_.channels.size(), 0),
        takenFrom_(size_t(plan.ranks) * base_.channels.size(), 0) {}

  bool completes() {
    for (bool moved = true; moved;) {
      moved = false;
      for (uint32_t c = 0; c < base_.channels.size(); ++c) moved = advance(c) || moved;
    }
    for (uint32_t c = 0; c < base_.channels.size(); ++c)
      if (pc_[c] < base_.channels[c].ops.size()) return false;
    return true;
  }

private:
  size_t slot(int peer, uint32_t channel) const {
    return size_t(peer) * base_.channels.size() + channel;
  }
  int preimageOfZero(int rank) const {
    return symmetricPreimage(plan_.symmetry->group, 0, rank, plan_.ranks);
  }
  /// Messages on the FIFO from `peer` to rank 0 not yet taken.
  uint64_t waitingFrom(int peer, uint32_t c) const {
    return sentTo_[slot(preimageOfZero(peer), c)] - takenFrom_[slot(peer, c)];
  }
  /// Messages on the FIFO from rank 0 to `peer` not yet taken.
  uint64_t pendingTo(int peer, uint32_t c) const {
    return sentTo_[slot(peer, c)] - takenFrom_[slot(preimageOfZero(peer), c)];
  }

  bool advance(uint32_t c) {
    const std::vector<PlanOp> &ops = base_.channels[c].ops;
    bool moved = false;
    while (pc_[c] < ops.size()) {
      const size_t first = pc_[c], last = first + chains_[c][first];
      if (!ready(ops, first, last, c)) break;
      for (size_t i = first; i < last; ++i) {
        if (ops[i].recv) ++takenFrom_[slot(*ops[i].recv, c)];
        for (int32_t q : ops[i].sends) ++sentTo_[slot(q, c)];
      }
      pc_[c] = last;
      moved = true;
    }
    return moved;
  }

  bool ready(const std::vector<PlanOp> &ops, size_t first, size_t last, uint32_t c) const {
    for (const OpRef &dep : ops[first].after)
      if (pc_[dep.channel] <= dep.op) return false;
    for (size_t i = first; i < last; ++i) {
      if (ops[i].recv && waitingFrom(*ops[i].recv, c) == 0) return false;
      for (int32_t q : ops[i].sends) {
        if (pendingTo(q, c) + sendsTo(ops[i], q) > kChannelDepth) return false;
      }
    }
    return true;
  }

  const Plan &plan_;
  const RankProgram &base_;
  std::vector<std::vector<uint32_t>> chains_;
  std::vector<size_t> pc_;
  std::vector<uint64_t> sentTo_, takenFrom_;  ///< rank 0's, per (peer, channel)
};

std::string channelName(const StuckChannel &s, bool withChannel) {
  return "rank " + std::to_string(s.rank) +
         (withChannel ? " channel " + std::to_string(s.channel) : std::string());
}

}  // namespace

bool symmetricRunCompletes(const Plan &plan) {
  return plan.symmetry && plan.onlyRank < 0 && SymmetricRun(plan).completes();
}

DeadlockReport checkDeadlockFree(const Plan &plan) {
  if (symmetricRunCompletes(plan)) {
    DeadlockReport none;
    none.totalRanks = plan.ranks;
    return none;
  }
  return DeadlockRun(plan).run();  // also what a symmetric plan that stalls reports
}

const StuckChannel &DeadlockReport::first() const {
  return cycle.empty() ? stuck.front() : stuck[cycle.front()];
}

std::string DeadlockReport::describe() const {
  if (stuck.empty()) return "no deadlock";
  bool channels = false;  // name channels only when some stuck channel is not channel 0
  for (const StuckChannel &s : stuck) channels = channels || s.channel != 0;
  std::vector<int> ranks;
  for (const StuckChannel &s : stuck)
    if (ranks.empty() || ranks.back() != s.rank) ranks.push_back(s.rank);
  constexpr size_t kListed = 8;
  std::string out = "deadlock: " + std::to_string(ranks.size()) + " of " +
                    std::to_string(totalRanks) + " ranks cannot finish: ";
  for (size_t i = 0; i < stuck.size() && i < kListed; ++i) {
    const StuckChannel &s = stuck[i];
    if (i) out += "; ";
    out += "rank " + std::to_string(s.rank) + " waits at channels[" + std::to_string(s.channel) +
           "].ops[" + std::to_string(s.op) + "] for ";
    switch (s.waits) {
    case WaitKind::Message: out += "a message from rank " + std::to_string(s.peer); break;
    case WaitKind::Room:
      out += "rank " + std::to_string(s.peer) + " to consume one of the " +
             std::to_string(kChannelDepth) + " messages it was sent on channel " +
             std::to_string(s.channel);
      break;
    case WaitKind::Channel:
      out += "channels[" + std::to_string(s.peerChannel) + "].ops[" + std::to_string(s.peerOp) +
             "] to finish";
      break;
    }
  }
  if (stuck.size() > kListed) out += "; ... and " + std::to_string(stuck.size() - kListed) + " more";
  if (!cycle.empty()) {
    out += " (cycle: ";
    for (size_t k : cycle) out += channelName(stuck[k], channels) + " -> ";
    out += channelName(stuck[cycle.front()], channels) + ")";
  } else {
    out += " (the first waiting channel's chain of waits ends at a channel that finished without "
           "sending what it waits for)";
  }
  return out;
}

}  // namespace collplan
