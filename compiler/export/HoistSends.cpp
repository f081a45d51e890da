// hoistSends: two round-by-round list schedules of every rank's instructions (the first as if
// transfers were matched by id, for priorities; the second under the execution model, senders
// ordering each FIFO within what its receiver's dependencies allow), then each rank's body
// rewritten in issue order.
#include "compiler/export/HoistSends.h"

#include "compiler/export/Conflicts.h"
#include "compiler/export/RankOps.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// One rank's instructions and their dependencies.
struct RankProgramIR {
  RankOp rankOp;
  std::vector<Instruction> ops;
  std::vector<std::vector<uint32_t>> successors;
  std::vector<uint32_t> dependencies;  ///< per instruction: how many it follows
};

/// The FIFO of one (sender, receiver, channel).
struct Fifo {
  std::deque<uint32_t> queue;  ///< ids of messages sent and not yet received
  uint64_t sent = 0, consumed = 0;
  uint64_t consumedBefore = 0;  ///< consumed as the round began: room frees up a round later
};

/// Per transfer id, the messages of its FIFO that must be sent before it: those whose receiving
/// instruction precedes its receiving instruction in the receiver's dependencies (the receiver
/// takes a FIFO's messages in order, so it could not take them the other way round).
using SendAfter = std::unordered_map<uint32_t, std::vector<uint32_t>>;

/// How a schedule matches transfers.
enum class Matching {
  ById,    ///< a receive takes its own message whenever it has arrived; no room limit
  InOrder, ///< the execution model: FIFO heads, kChannelDepth, and sends after their SendAfter
};

class Scheduler {
public:
  Scheduler(const std::vector<RankProgramIR> &ranks, Matching matching,
            const std::vector<uint64_t> &priority, const SendAfter &sendAfter = {})
      : ranks_(ranks), matching_(matching), priority_(priority), sendAfter_(sendAfter),
        state_(ranks.size()) {
    for (size_t r = 0, o = 0; r < ranks.size(); o += ranks[r].ops.size(), ++r)
      offset_.push_back(o);
    for (size_t r = 0; r < ranks.size(); ++r) {
      RankState &s = state_[r];
      s.pending = ranks[r].dependencies;
      for (uint32_t i = 0; i < s.pending.size(); ++i)
        if (s.pending[i] == 0) s.ready.push_back(i);
      for (const Instruction &op : ranks[r].ops)
        for (uint32_t id : op.sendIds) sentRound_[id] = -1;
    }
  }

  Fifo &fifo(int sender, int receiver, uint32_t channel) {
    return fifos_[FifoKey{sender, receiver, channel}];
  }

  /// Runs the schedule; returns false when it gets stuck.
  bool run() {
    size_t left = 0;
    for (const RankProgramIR &r : ranks_) left += r.ops.size();
    for (int64_t round = 0; left > 0; ++round) {
      for (auto &[key, f] : fifos_) f.consumedBefore = f.consumed;
      size_t issued = 0;
      for (size_t r = 0; r < ranks_.size(); ++r) issued += issueReady(int(r), round);
      if (issued == 0) return false;
      left -= issued;
      rounds_ = unsigned(round + 1);
    }
    return true;
  }

  /// Per rank, the instructions in issue order.
  std::vector<std::vector<uint32_t>> orders() const {
    std::vector<std::vector<uint32_t>> out;
    for (const RankState &s : state_) out.push_back(s.order);
    return out;
  }
  /// Per rank and instruction, its place in the global issue sequence.
  const std::unordered_map<uint64_t, uint64_t> &sequence() const { return sequence_; }
  unsigned rounds() const { return rounds_; }

  /// "rank 1 has 2 instructions left (waits for transfer 0 from rank 0 on channel 0); ...".
  std::string describeStuck() const {
    std::string text;
    int listed = 0;
    for (size_t rank = 0; rank < ranks_.size() && listed < 8; ++rank) {
      const RankState &s = state_[rank];
      const size_t left = ranks_[rank].ops.size() - s.order.size();
      if (left == 0) continue;
      text += std::string(listed++ ? ";" : "") + " rank " + std::to_string(rank) + " has " +
              std::to_string(left) + " instructions left";
      for (uint32_t i : s.ready)
        if (const Instruction &op = ranks_[rank].ops[i]; op.recv) {
          text += " (waits for transfer " + std::to_string(*op.recvId) + " from rank " +
                  std::to_string(*op.recv) + " on channel " + std::to_string(op.channel) + ")";
          break;
        }
    }
    return text;
  }

  static uint64_t key(size_t rank, uint32_t i) { return uint64_t(rank) << 32 | i; }

private:
  using FifoKey = std::tuple<int, int, uint32_t>;  ///< sender, receiver, channel
  struct RankState {
    std::vector<uint32_t> pending;  ///< per instruction: dependencies not yet issued
    std::vector<uint32_t> ready;    ///< instructions whose dependencies were all issued
    std::vector<uint32_t> order;    ///< issue order
  };

public:
  /// After a run that got stuck: a message behind the head of some FIFO whose receive could
  /// run now, and that head, whose receive cannot (it waits for something the later message's
  /// receive would lead to). Sending the first before the second may unblock the schedule.
  std::optional<std::pair<uint32_t, uint32_t>> reorderHint() {
    std::unordered_map<uint32_t, std::pair<int, uint32_t>> receiver;  // id -> (rank, instr)
    for (size_t r = 0; r < ranks_.size(); ++r)
      for (uint32_t i : state_[r].ready)
        if (ranks_[r].ops[i].recv) receiver[*ranks_[r].ops[i].recvId] = {int(r), i};
    for (auto &[key, f] : fifos_) {
      if (f.queue.size() < 2) continue;
      auto head = receiver.find(f.queue.front());
      if (head != receiver.end() && issuable(head->second.first, head->second.second, kAnyRound,
                                             /*ignoreTurn=*/true))
        continue;  // the head can be received: this FIFO is not what is stuck
      for (size_t k = 1; k < f.queue.size(); ++k) {
        auto later = receiver.find(f.queue[k]);
        if (later != receiver.end() &&
            issuable(later->second.first, later->second.second, kAnyRound, /*ignoreTurn=*/true))
          return std::make_pair(f.queue[k], f.queue.front());
      }
    }
    return std::nullopt;
  }

private:
  static constexpr int64_t kAnyRound = std::numeric_limits<int64_t>::max();

  /// Whether instruction `i` of `rank` can be issued in `round` (with `ignoreTurn`, as if its
  /// message were at the head of its FIFO).
  bool issuable(int rank, uint32_t i, int64_t round, bool ignoreTurn = false) {
    const Instruction &op = ranks_[size_t(rank)].ops[i];
    if (op.recv) {
      const int64_t sent = sentRound_.at(*op.recvId);
      if (sent < 0 || sent >= round) return false;  // not sent, or sent this round
      if (matching_ == Matching::InOrder && !ignoreTurn) {
        const Fifo &f = fifo(*op.recv, rank, op.channel);
        if (f.queue.empty() || f.queue.front() != *op.recvId) return false;  // not its turn
      }
    }
    if (matching_ == Matching::ById) return true;
    for (size_t k = 0; k < op.sends.size(); ++k) {
      const Fifo &f = fifo(rank, op.sends[k], op.channel);
      if (f.sent - f.consumedBefore >= kChannelDepth) return false;
      if (auto it = sendAfter_.find(op.sendIds[k]); it != sendAfter_.end())
        for (uint32_t earlier : it->second)
          if (sentRound_.at(earlier) < 0) return false;
    }
    return true;
  }

  void issue(int rank, uint32_t i, int64_t round) {
    RankState &s = state_[size_t(rank)];
    const Instruction &op = ranks_[size_t(rank)].ops[i];
    if (op.recv) {
      Fifo &f = fifo(*op.recv, rank, op.channel);
      if (matching_ == Matching::InOrder) f.queue.pop_front();
      ++f.consumed;
    }
    for (size_t k = 0; k < op.sends.size(); ++k) {
      Fifo &f = fifo(rank, op.sends[k], op.channel);
      f.queue.push_back(op.sendIds[k]);
      ++f.sent;
      sentRound_[op.sendIds[k]] = round;
    }
    s.order.push_back(i);
    sequence_[key(size_t(rank), i)] = sequence_.size();
    for (uint32_t next : ranks_[size_t(rank)].successors[i])
      if (--s.pending[next] == 0) s.ready.push_back(next);
  }

  /// Issues, best first, every instruction of `rank` that is or becomes issuable this round:
  /// those that receive nothing first, then by `priority`.
  size_t issueReady(int rank, int64_t round) {
    RankState &s = state_[size_t(rank)];
    const std::vector<Instruction> &ops = ranks_[size_t(rank)].ops;
    auto better = [&](uint32_t a, uint32_t b) {
      if (ops[a].recv.has_value() != ops[b].recv.has_value()) return !ops[a].recv.has_value();
      return priority_[offset_[size_t(rank)] + a] < priority_[offset_[size_t(rank)] + b];
    };
    size_t issued = 0;
    for (;;) {
      size_t best = s.ready.size();
      for (size_t k = 0; k < s.ready.size(); ++k)
        if ((best == s.ready.size() || better(s.ready[k], s.ready[best])) &&
            issuable(rank, s.ready[k], round))
          best = k;
      if (best == s.ready.size()) return issued;
      const uint32_t i = s.ready[best];
      s.ready.erase(s.ready.begin() + long(best));
      issue(rank, i, round);
      ++issued;
    }
  }

  const std::vector<RankProgramIR> &ranks_;
  Matching matching_;
  const std::vector<uint64_t> &priority_;  ///< per instruction of every rank, rank by rank
  const SendAfter &sendAfter_;
  std::vector<size_t> offset_;             ///< per rank: its first instruction in priority_
  std::vector<RankState> state_;
  std::map<FifoKey, Fifo> fifos_;
  std::unordered_map<uint32_t, int64_t> sentRound_;  ///< transfer id -> round sent, or -1
  std::unordered_map<uint64_t, uint64_t> sequence_;
  unsigned rounds_ = 0;
};

std::vector<RankProgramIR> loadRanks(ProgramOp program) {
  std::vector<RankProgramIR> ranks;
  for (auto rankOp : program.getBody().front().getOps<RankOp>()) {
    const size_t rank = size_t(rankOp.getRank());
    if (ranks.size() <= rank) ranks.resize(rank + 1);
    RankProgramIR &r = ranks[rank];
    r.rankOp = rankOp;
    r.ops = readRankOps(rankOp);
    const std::vector<std::vector<uint32_t>> deps =
        instructionDependencies(r.ops, inPlaceUnitShift(program, int(rank)));
    r.successors.assign(r.ops.size(), {});
    r.dependencies.assign(r.ops.size(), 0);
    for (uint32_t i = 0; i < r.ops.size(); ++i) {
      r.dependencies[i] = uint32_t(deps[i].size());
      for (uint32_t j : deps[i]) r.successors[j].push_back(i);
    }
  }
  return ranks;
}

/// For each receiving instruction, the earlier receives of the same FIFO it must follow in its
/// rank's dependencies (transitively): one bit per receive of the rank, propagated in program
/// order (a topological order of the dependencies).
SendAfter receiveOrderConstraints(const std::vector<RankProgramIR> &ranks) {
  SendAfter out;
  for (const RankProgramIR &r : ranks) {
    std::vector<uint32_t> recvs;  // instruction of each receive, in program order
    for (uint32_t i = 0; i < r.ops.size(); ++i)
      if (r.ops[i].recv) recvs.push_back(i);
    if (recvs.size() < 2) continue;
    const size_t words = (recvs.size() + 63) / 64;
    std::vector<uint64_t> before(r.ops.size() * words, 0);  // receives each instruction follows
    std::vector<uint32_t> recvIndex(r.ops.size(), UINT32_MAX);
    for (uint32_t k = 0; k < recvs.size(); ++k) recvIndex[recvs[k]] = k;
    for (uint32_t i = 0; i < r.ops.size(); ++i) {
      uint64_t *mine = &before[size_t(i) * words];
      for (uint32_t next : r.successors[i]) {
        uint64_t *theirs = &before[size_t(next) * words];
        for (size_t w = 0; w < words; ++w) theirs[w] |= mine[w];
        if (recvIndex[i] != UINT32_MAX) theirs[recvIndex[i] / 64] |= uint64_t(1) << (recvIndex[i] % 64);
      }
    }
    for (uint32_t b : recvs) {
      const Instruction &later = r.ops[b];
      const uint64_t *mine = &before[size_t(b) * words];
      for (uint32_t k = 0; k < recvs.size(); ++k) {
        if (!(mine[k / 64] >> (k % 64) & 1)) continue;
        const Instruction &earlier = r.ops[recvs[k]];
        if (*earlier.recv == *later.recv && earlier.channel == later.channel)
          out[*later.recvId].push_back(*earlier.recvId);
      }
    }
  }
  return out;
}

/// Moves every rank's instructions into `orders`; returns how many changed position.
unsigned rewrite(const std::vector<RankProgramIR> &ranks,
                 const std::vector<std::vector<uint32_t>> &orders) {
  unsigned moved = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!ranks[r].rankOp) continue;
    RankOp rankOp = ranks[r].rankOp;
    Block &body = rankOp.getBody().front();
    std::vector<Operation *> instrs;
    for (Operation &op : body) instrs.push_back(&op);
    for (size_t k = 0; k < orders[r].size(); ++k) {
      moved += orders[r][k] != k ? 1 : 0;
      instrs[orders[r][k]]->moveBefore(&body, body.end());
    }
  }
  return moved;
}

}  // namespace

FailureOr<HoistResult> hoistSends(ProgramOp program) {
  const std::vector<RankProgramIR> ranks = loadRanks(program);
  // 1. As if transfers were matched by id: when each message is consumed, and a priority that
  //    follows the compiler's steps.
  std::vector<uint64_t> byStep;
  for (const RankProgramIR &r : ranks)
    for (uint32_t i = 0; i < r.ops.size(); ++i)
      byStep.push_back(uint64_t(uint32_t(r.ops[i].step) + 1) << 32 | i);  // step -1 goes first
  Scheduler byId(ranks, Matching::ById, byStep);
  if (!byId.run()) {
    program.emitOpError() << "cannot be ordered: its programs deadlock even with transfers "
                             "matched by id:"
                          << byId.describeStuck();
    return failure();
  }
  // 2. Under the execution model, each instruction preferring its place in (1), the sender of
  //    every FIFO choosing its order within what the receiver's dependencies allow.
  std::vector<uint64_t> bySequence;
  for (size_t r = 0; r < ranks.size(); ++r)
    for (uint32_t i = 0; i < ranks[r].ops.size(); ++i)
      bySequence.push_back(byId.sequence().at(Scheduler::key(r, i)));
  //    When the receivers' programs need a FIFO's messages in another order than the senders
  //    chose (a receive that also sends, waiting for what a later message's receive sends
  //    first), the schedule gets stuck with the later message's receive ready behind the head:
  //    that message must be sent first, and the schedule runs again.
  SendAfter sendAfter = receiveOrderConstraints(ranks);
  size_t reorders = 0;
  for (;;) {
    Scheduler inOrder(ranks, Matching::InOrder, bySequence, sendAfter);
    if (inOrder.run()) {
      HoistResult result;
      result.rounds = inOrder.rounds();
      result.reorders = unsigned(reorders);
      result.moved = rewrite(ranks, inOrder.orders());
      return result;
    }
    const std::optional<std::pair<uint32_t, uint32_t>> hint = inOrder.reorderHint();
    std::vector<uint32_t> *after = hint ? &sendAfter[hint->second] : nullptr;
    if (!hint || std::find(after->begin(), after->end(), hint->first) != after->end() ||
        ++reorders > 64 * ranks.size()) {
      program.emitOpError() << "cannot be ordered: its ranks deadlock under the execution model "
                               "(transfers matched in order per sender, receiver and channel, "
                               "at most "
                            << kChannelDepth << " unconsumed messages each):"
                            << inOrder.describeStuck();
      return failure();
    }
    after->push_back(hint->first);
  }
}

}  // namespace collplan
