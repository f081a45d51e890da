// hoistSends: every rank's instructions in the port model's round order when that finishes
// under the execution model, else in the order of two round-by-round list schedules (the first
// as if transfers were matched by id, for priorities; the second under the execution model);
// then each rank's body rewritten in that order.
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
  /// `priority` ranks each rank's instructions (lower first). A `strict` schedule issues them
  /// in exactly that order (it checks a given order); otherwise whatever is ready goes, those
  /// that receive nothing first.
  Scheduler(const std::vector<RankProgramIR> &ranks, Matching matching,
            const std::vector<uint64_t> &priority, bool strict, FifoBound bound,
            const SendAfter &sendAfter = {})
      : ranks_(ranks), matching_(matching), priority_(priority), sendAfter_(sendAfter),
        strict_(strict),
        depth_(bound == FifoBound::ChannelDepth ? kChannelDepth
                                                : std::numeric_limits<uint64_t>::max()),
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
      if (f.sent - f.consumedBefore >= depth_) return false;
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
      if (!strict_ && ops[a].recv.has_value() != ops[b].recv.has_value())
        return !ops[a].recv.has_value();
      return priority_[offset_[size_t(rank)] + a] < priority_[offset_[size_t(rank)] + b];
    };
    size_t issued = 0;
    for (;;) {
      size_t best = s.ready.size();
      for (size_t k = 0; k < s.ready.size(); ++k)
        if ((best == s.ready.size() || better(s.ready[k], s.ready[best])) &&
            (strict_ || issuable(rank, s.ready[k], round)))
          best = k;
      if (best == s.ready.size()) return issued;
      if (strict_ && !issuable(rank, s.ready[best], round)) return issued;  // its turn waits
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
  bool strict_;
  uint64_t depth_;  ///< unconsumed messages a FIFO holds
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
        instructionDependencies(r.ops, unitLayout(program, int(rank)));
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

/// Ring distance from a rank to the peer an instruction talks to (a send's first peer, else the
/// peer it receives from), 0 for local instructions: within one step, rank r sends to r+1, r+2,
/// ... in turn while receiving from r-1, r-2, ..., so every turn is a permutation of the ranks
/// (the port model's conflict-free order) rather than everyone sending to one peer at once.
uint32_t ringShift(const Instruction &op, int rank, int ranks) {
  if (!op.sends.empty()) return uint32_t((op.sends.front() - rank + ranks) % ranks);
  if (op.recv) return uint32_t((rank - *op.recv + ranks) % ranks);
  return 0;
}

/// Per instruction of every rank (rank by rank), its rank of preference within its rank: the
/// compiler's step (unstepped instructions first), then the ring shift, then program order.
std::vector<uint64_t> stepPriorities(const std::vector<RankProgramIR> &ranks) {
  std::vector<uint64_t> priority;
  const int n = int(ranks.size());
  for (int rank = 0; rank < n; ++rank) {
    const std::vector<Instruction> &ops = ranks[size_t(rank)].ops;
    std::vector<uint32_t> order(ops.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    auto key = [&](uint32_t i) {
      return std::make_tuple(ops[i].step, ops[i].recv.has_value(), ringShift(ops[i], rank, n), i);
    };
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    const size_t base = priority.size();
    priority.resize(base + ops.size());
    for (uint32_t k = 0; k < order.size(); ++k) priority[base + order[k]] = k;
  }
  return priority;
}

/// Extra ordering edges of one rank: instruction -> instructions that must follow it.
using ExtraEdges = std::unordered_map<uint32_t, std::vector<uint32_t>>;

/// One rank's instructions sorted by the port-model round the compiler gave them: by step
/// (unstepped first), within a step those that receive nothing first, then by ring shift, then
/// by transfer id, then program order; an instruction still waits for what it depends on and
/// for the `extra` edges. Empty when the edges make a cycle.
std::vector<uint32_t> stepOrder(const RankProgramIR &r, int rank, int ranks,
                                const ExtraEdges &extra) {
  auto key = [&](uint32_t i) {
    const Instruction &op = r.ops[i];
    const uint32_t id = op.recvId ? *op.recvId : op.sendIds.empty() ? 0 : op.sendIds.front();
    return std::make_tuple(op.step, op.recv.has_value(), ringShift(op, rank, ranks), id, i);
  };
  auto later = [&](uint32_t a, uint32_t b) { return key(b) < key(a); };
  std::vector<uint32_t> pending = r.dependencies, ready, order;
  for (const auto &[from, tos] : extra)
    for (uint32_t to : tos) ++pending[to];
  for (uint32_t i = 0; i < pending.size(); ++i)
    if (pending[i] == 0) ready.push_back(i);
  std::make_heap(ready.begin(), ready.end(), later);
  auto release = [&](uint32_t next) {
    if (--pending[next] != 0) return;
    ready.push_back(next);
    std::push_heap(ready.begin(), ready.end(), later);
  };
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), later);
    const uint32_t i = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (uint32_t next : r.successors[i]) release(next);
    if (auto it = extra.find(i); it != extra.end())
      for (uint32_t next : it->second) release(next);
  }
  if (order.size() != r.ops.size()) order.clear();
  return order;
}

/// Every rank's step order, with each receiver taking a FIFO's messages in the order its sender
/// sends them: the receiver's receives of one FIFO are chained in the sender's order and the
/// ranks re-sorted, until no order changes. Empty when that does not settle.
std::vector<std::vector<uint32_t>> stepOrders(const std::vector<RankProgramIR> &ranks) {
  const int n = int(ranks.size());
  std::vector<std::vector<uint32_t>> orders(ranks.size());
  std::vector<ExtraEdges> extra(ranks.size());
  std::unordered_map<uint32_t, std::pair<int, uint32_t>> receiverOf;  // id -> (rank, instr)
  for (int r = 0; r < n; ++r)
    for (uint32_t i = 0; i < ranks[size_t(r)].ops.size(); ++i)
      if (const auto &id = ranks[size_t(r)].ops[i].recvId) receiverOf[*id] = {r, i};
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    for (int r = 0; r < n; ++r) {
      std::vector<uint32_t> order = stepOrder(ranks[size_t(r)], r, n, extra[size_t(r)]);
      if (order.empty()) return {};
      changed = changed || order != orders[size_t(r)];
      orders[size_t(r)] = std::move(order);
    }
    if (!changed) return orders;
    // Chain each FIFO's receives in the order its sender now sends.
    for (ExtraEdges &e : extra) e.clear();
    std::map<std::tuple<int, int, uint32_t>, uint32_t> lastReceive;  // FIFO -> receiving instr
    for (int r = 0; r < n; ++r)
      for (uint32_t i : orders[size_t(r)]) {
        const Instruction &op = ranks[size_t(r)].ops[i];
        for (size_t k = 0; k < op.sends.size(); ++k) {
          auto it = receiverOf.find(op.sendIds[k]);
          if (it == receiverOf.end()) continue;
          auto [to, at] = it->second;
          auto [last, fresh] = lastReceive.try_emplace({r, to, op.channel}, at);
          if (!fresh) {
            extra[size_t(to)][last->second].push_back(at);
            last->second = at;
          }
        }
      }
  }
  return {};
}

/// Whether every rank running `orders` strictly in sequence finishes under the execution model.
bool finishesInOrder(const std::vector<RankProgramIR> &ranks,
                     const std::vector<std::vector<uint32_t>> &orders, FifoBound bound) {
  std::vector<uint64_t> position;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const size_t base = position.size();
    position.resize(base + ranks[r].ops.size());
    for (size_t k = 0; k < orders[r].size(); ++k) position[base + orders[r][k]] = k;
  }
  return Scheduler(ranks, Matching::InOrder, position, /*strict=*/true, bound).run();
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

namespace {

/// How many messages the list schedule may move ahead of a FIFO's head before it gives up: each
/// try reruns the whole schedule, and compiled algorithms need none.
constexpr size_t kMaxReorders = 64;

/// Both schedules of hoistSends; per rank, the issue order, or what is stuck in `stuck`.
std::optional<std::vector<std::vector<uint32_t>>>
orderPrograms(const std::vector<RankProgramIR> &ranks, FifoBound bound, HoistResult &result,
              std::string &stuck) {
  // 1. As if transfers were matched by id: when each message is consumed, and a priority that
  //    follows the compiler's steps.
  const std::vector<uint64_t> byStep = stepPriorities(ranks);
  Scheduler byId(ranks, Matching::ById, byStep, /*strict=*/false, bound);
  if (!byId.run()) {
    stuck = "its programs deadlock even with transfers matched by id:" + byId.describeStuck();
    return std::nullopt;
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
    Scheduler inOrder(ranks, Matching::InOrder, bySequence, /*strict=*/false, bound, sendAfter);
    if (inOrder.run()) {
      result.rounds = inOrder.rounds();
      result.reorders = unsigned(reorders);
      return inOrder.orders();
    }
    const std::optional<std::pair<uint32_t, uint32_t>> hint = inOrder.reorderHint();
    std::vector<uint32_t> *after = hint ? &sendAfter[hint->second] : nullptr;
    if (!hint || std::find(after->begin(), after->end(), hint->first) != after->end() ||
        ++reorders > kMaxReorders) {
      stuck = "its ranks deadlock under the execution model (transfers matched in order per "
              "sender, receiver and channel, at most " +
              std::to_string(kChannelDepth) + " unconsumed messages each):" +
              inOrder.describeStuck();
      return std::nullopt;
    }
    after->push_back(hint->first);
  }
}

/// Moves each local instruction that nothing needs (no receive, no send, no successor: an own
/// block copied into the output) after the sends that follow it: a send only publishes, so the
/// peers start on their messages while the rank copies (broadcast and all-to-all on 2 ranks at
/// 8 B: 3-16% less in interleaved runs, bench/RESULTS.md). Local work that a later op reads
/// stays, so scratch a send reads is not reused behind it. No send changes its place among the
/// sends.
void sinkLocalWorkPastSends(const std::vector<RankProgramIR> &ranks,
                            std::vector<std::vector<uint32_t>> &orders) {
  auto isSendOnly = [](const Instruction &op) { return !op.recv && !op.sends.empty(); };
  for (size_t r = 0; r < ranks.size(); ++r) {
    const RankProgramIR &rank = ranks[r];
    auto isFinalLocal = [&](uint32_t i) {
      const Instruction &op = rank.ops[i];
      return !op.recv && op.sends.empty() && rank.successors[i].empty();
    };
    std::vector<uint32_t> &order = orders[r];
    for (size_t k = order.size(); k-- > 0;) {
      if (!isFinalLocal(order[k])) continue;
      for (size_t at = k; at + 1 < order.size() && isSendOnly(rank.ops[order[at + 1]]); ++at)
        std::swap(order[at], order[at + 1]);
    }
  }
}

}  // namespace

FailureOr<HoistResult> hoistSends(ProgramOp program, FifoBound bound) {
  const std::vector<RankProgramIR> ranks = loadRanks(program);
  HoistResult result;
  std::string stuck;
  // The port model's order when it finishes under the execution model; otherwise a list
  // schedule that issues each send as early as it can (see HoistSends.h).
  // A program marked sends_first skips the port model's one send per round: the list schedule
  // issues every send that needs nothing received before the receives.
  std::optional<std::vector<std::vector<uint32_t>>> orders;
  if (!program.getSendsFirst()) {
    orders = stepOrders(ranks);
    result.byRounds = !orders->empty() && finishesInOrder(ranks, *orders, bound);
  }
  if (!result.byRounds)
    orders = orderPrograms(ranks, bound, result, stuck);
  if (!orders) {
    program.emitOpError() << "cannot be ordered: " << stuck;
    return failure();
  }
  sinkLocalWorkPastSends(ranks, *orders);
  result.moved = rewrite(ranks, *orders);
  markInPlaceSafety(program);  // the new order may read every input before clobbering it
  return result;
}

}  // namespace collplan
