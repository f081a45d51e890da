// coalesceTransfers: same-round transfers between two ranks merged into one message.
//
// Works on the plan ops of every rank at once (a merge edits the sender and the receiver):
//  1. split each receive that forwards what it wrote into the receive and a send of that range,
//     so forwarded values can join other sends, and each receive-reduction into a receive into
//     fresh scratch and a local reduction (SplitReductions.h), so its message can join others;
//  2. line sends up (each send-only instruction moved above the plain receives before it that do
//     not write what it sends) and merge pairs, until no pair is left (a merged message can join
//     a third one);
//  3. fuse back the split receive-reductions whose message stayed alone, and a receive and the
//     send of exactly what it wrote into one instruction.
#include "compiler/export/CoalesceTransfers.h"

#include "compiler/export/RankOps.h"
#include "compiler/export/SplitReductions.h"
#include "dialects/coll/CollectiveSpec.h"
#include "runtime/core/Collective.h"
#include "runtime/plan/DefaultPlans.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

using Instr = Instruction;

bool isSendOnly(const Instr &op) {
  return !op.recv && op.dsts.empty() && op.srcs.size() == 1 && !op.sends.empty();
}
bool isPlainRecv(const Instr &op) {
  return op.recv && op.srcs.empty() && op.sends.empty() && op.dsts.size() == 1;
}
bool isLocalCopy(const Instr &op) {
  return !op.recv && op.srcs.size() == 1 && !op.dsts.empty();
}
/// A receive whose value is also sent on: recv -> [d] + sends.
bool isForwardingRecv(const Instr &op) {
  return op.recv && op.srcs.empty() && op.dsts.size() == 1 && !op.sends.empty();
}
/// Marks an op as removed (dropped when the rank's ops are compacted).
bool isDead(const Instr &op) {
  return !op.recv && op.srcs.empty() && op.dsts.empty() && op.sends.empty();
}

/// Moves every send-only instruction above the receives before it that send nothing, do not
/// write what it sends (in the rank's UnitLayout) and belong to its round or a later one, so
/// that a round's sends to one peer sit next to each other. Sends keep their order, and no send
/// overtakes a receive of an earlier round (the order coll-hoist-sends gave by rounds).
void lineUpSends(std::vector<Instr> &ops, UnitLayout layout) {
  auto writesAnyOf = [&](const Instr &writer, const Instr &reader) {
    for (const BufRef &dst : writer.dsts)
      for (const BufRef &src : reader.srcs)
        if (layout.overlap(dst, src)) return true;
    return false;
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].sends.empty() || ops[i].recv || !ops[i].dsts.empty()) continue;
    size_t to = i;
    while (to > 0 && ops[to - 1].recv && ops[to - 1].sends.empty() &&
           ops[to - 1].step >= ops[i].step && !writesAnyOf(ops[to - 1], ops[i]))
      --to;
    if (to != i)
      std::rotate(ops.begin() + long(to), ops.begin() + long(i), ops.begin() + long(i) + 1);
  }
}

/// `hi` starts where `lo` ends, in the same buffer.
bool follows(const BufRef &lo, const BufRef &hi) {
  return lo.buf == hi.buf && lo.offset + lo.length == hi.offset;
}
BufRef joined(const BufRef &lo, const BufRef &hi) {
  return {lo.buf, lo.offset, lo.length + hi.length};
}

/// One rank's plan ops and its in-place shift, with the overlap queries the merges need.
struct RankPlanOps {
  std::vector<Instr> ops;
  UnitLayout layout;

  bool writes(size_t k, const BufRef &r) const {
    for (const BufRef &d : ops[k].dsts)
      if (layout.overlap(d, r)) return true;
    return false;
  }
  bool touches(size_t k, const BufRef &r) const {
    if (writes(k, r)) return true;
    for (const BufRef &s : ops[k].srcs)
      if (layout.overlap(s, r)) return true;
    return false;
  }
  /// No op strictly between `from` and `to` writes `r`.
  bool unwrittenBetween(size_t from, size_t to, const BufRef &r) const {
    for (size_t k = from + 1; k < to; ++k)
      if (writes(k, r)) return false;
    return true;
  }
  /// Ranges that hold the same data as `r` when op `at` runs: `r` itself, and the other end of
  /// each earlier local copy from or to `r` when neither end was written since.
  std::vector<BufRef> equalRanges(const BufRef &r, size_t at) const {
    std::vector<BufRef> out = {r};
    for (size_t c = 0; c < at; ++c) {
      const Instr &op = ops[c];
      if (!isLocalCopy(op)) continue;
      std::vector<BufRef> ends = op.dsts;
      ends.push_back(op.srcs.front());
      if (std::find(ends.begin(), ends.end(), r) == ends.end()) continue;
      for (const BufRef &e : ends)
        if (!(e == r) && unwrittenBetween(c, at, e) && unwrittenBetween(c, at, r))
          out.push_back(e);
    }
    return out;
  }
};

/// Whether `next` continues `prev` as one local reduce or copy (see coalesceTransfers).
bool continuesLocalRun(const Instr &prev, const Instr &next, const UnitLayout &layout) {
  auto local = [](const Instr &op) {
    return !op.recv && op.sends.empty() && op.dsts.size() == 1 &&
           (op.kind == OpKind::Reduce || op.kind == OpKind::Copy);
  };
  if (!local(prev) || !local(next) || prev.kind != next.kind || prev.step != next.step ||
      prev.channel != next.channel || prev.srcs.size() != next.srcs.size())
    return false;
  if (!follows(prev.dsts.front(), next.dsts.front())) return false;
  for (size_t k = 0; k < prev.srcs.size(); ++k)
    if (!follows(prev.srcs[k], next.srcs[k])) return false;
  for (const BufRef &src : next.srcs)
    if (layout.overlap(prev.dsts.front(), src)) return false;
  for (const BufRef &src : prev.srcs)
    if (layout.overlap(next.dsts.front(), src)) return false;
  return true;
}

/// Folds every run of adjacent local instructions that continue one another into its first
/// instruction; returns how many were folded.
unsigned mergeLocalRuns(std::vector<Instr> &ops, const UnitLayout &layout) {
  std::vector<Instr> out;
  out.reserve(ops.size());
  unsigned merged = 0;
  for (Instr &op : ops) {
    if (!out.empty() && continuesLocalRun(out.back(), op, layout)) {
      Instr &run = out.back();
      run.dsts.front() = joined(run.dsts.front(), op.dsts.front());
      for (size_t k = 0; k < run.srcs.size(); ++k) run.srcs[k] = joined(run.srcs[k], op.srcs[k]);
      ++merged;
      continue;
    }
    out.push_back(std::move(op));
  }
  ops = std::move(out);
  return merged;
}

class Coalescer {
public:
  Coalescer(std::vector<RankPlanOps> ranks, uint32_t scratchUnits, uint32_t unitsPerBlock)
      : ranks_(std::move(ranks)),
        reductions_(ranks_.size(), ReductionSplitter(scratchUnits, unitsPerBlock)) {}

  unsigned run() {
    for (size_t r = 0; r < ranks_.size(); ++r) {
      splitForwards(ranks_[r].ops);
      reductions_[r].split(ranks_[r].ops);
    }
    unsigned merged = 0;
    for (unsigned pass = 1; pass;) {
      for (RankPlanOps &r : ranks_) lineUpSends(r.ops, r.layout);
      indexReceives();
      pass = 0;
      for (size_t s = 0; s < ranks_.size(); ++s) pass += mergeFrom(int(s));
      for (RankPlanOps &r : ranks_) compact(r.ops);
      merged += pass;
    }
    for (size_t r = 0; r < ranks_.size(); ++r) {
      reductions_[r].restore(ranks_[r].ops);
      compact(ranks_[r].ops);
      fuseForwards(ranks_[r].ops);
      localOps_ += mergeLocalRuns(ranks_[r].ops, ranks_[r].layout);
    }
    return merged;
  }
  /// Local instructions folded by run().
  unsigned localOps() const { return localOps_; }

  std::vector<RankPlanOps> &ranks() { return ranks_; }
  /// Tmp units the ranks' programs may use now (split reductions use fresh ones).
  uint32_t scratchUnits() const {
    uint32_t units = 0;
    for (const ReductionSplitter &s : reductions_) units = std::max(units, s.scratchUnits());
    return units;
  }

private:
  struct RecvAt {
    int rank;
    size_t op;
  };

  static void splitForwards(std::vector<Instr> &ops) {
    std::vector<Instr> out;
    out.reserve(ops.size());
    for (Instr &op : ops) {
      if (!isForwardingRecv(op)) {
        out.push_back(std::move(op));
        continue;
      }
      Instr send;
      send.srcs = op.dsts;
      send.sends = std::move(op.sends);
      send.sendIds = std::move(op.sendIds);
      send.step = op.step;
      send.channel = op.channel;
      send.kind = inferOpKind(send);
      op.sends.clear();
      op.sendIds.clear();
      op.kind = OpKind::Recv;
      out.push_back(std::move(op));
      out.push_back(std::move(send));
    }
    ops = std::move(out);
  }

  static void fuseForwards(std::vector<Instr> &ops) {
    std::vector<Instr> out;
    out.reserve(ops.size());
    for (size_t k = 0; k < ops.size(); ++k) {
      Instr op = std::move(ops[k]);
      if (isPlainRecv(op) && k + 1 < ops.size() && isSendOnly(ops[k + 1]) &&
          ops[k + 1].srcs.front() == op.dsts.front() && ops[k + 1].channel == op.channel &&
          forwardsNextRound(op.step, ops[k + 1].step)) {
        op.sendIds = std::move(ops[k + 1].sendIds);
        op.sends = std::move(ops[++k].sends);
        op.kind = inferOpKind(op);
      }
      out.push_back(std::move(op));
    }
    ops = std::move(out);
  }

  static void compact(std::vector<Instr> &ops) {
    ops.erase(std::remove_if(ops.begin(), ops.end(), isDead), ops.end());
  }

  void indexReceives() {
    receiveOf_.clear();
    for (size_t r = 0; r < ranks_.size(); ++r)
      for (size_t k = 0; k < ranks_[r].ops.size(); ++k)
        if (const auto &id = ranks_[r].ops[k].recvId) receiveOf_[*id] = {int(r), k};
  }

  /// The receive of transfer `id`, when it is a plain receive.
  const Instr *plainReceive(uint32_t id) const {
    auto it = receiveOf_.find(id);
    if (it == receiveOf_.end()) return nullptr;
    const Instr &op = ranks_[size_t(it->second.rank)].ops[it->second.op];
    return isPlainRecv(op) && op.step >= 0 ? &op : nullptr;
  }

  /// Merges what it can among the send-only ops of rank `s`; returns how many transfers went.
  /// Each send is paired with the nearest earlier send to the same peer after the last receive
  /// (a send is never delayed past a receive); chains of pieces join over several passes.
  unsigned mergeFrom(int s) {
    RankPlanOps &sender = ranks_[size_t(s)];
    unsigned merged = 0;
    std::unordered_map<int64_t, size_t> lastSendTo;  ///< (channel, peer) -> op
    for (size_t k = 0; k < sender.ops.size(); ++k) {
      const Instr &op = sender.ops[k];
      if (op.recv) {
        lastSendTo.clear();
        continue;
      }
      if (!isSendOnly(op)) continue;
      // Messages of one channel only: each channel's transfers are matched on their own.
      const int64_t key = int64_t(op.channel) << 32;
      if (op.sends.size() == 1) {
        auto it = lastSendTo.find(key | op.sends.front());
        if (it != lastSendTo.end() && tryMerge(s, it->second, k)) ++merged;
      }
      for (int32_t peer : sender.ops[k].sends) lastSendTo[key | peer] = k;
    }
    return merged;
  }

  /// Joins the transfer op `i` of rank `s` sends to the peer of op `j`'s only send into that
  /// one, when the conditions in CoalesceTransfers.h hold; false (nothing changed) otherwise.
  bool tryMerge(int s, size_t i, size_t j) {
    RankPlanOps &sender = ranks_[size_t(s)];
    const int32_t peer = sender.ops[j].sends.front();
    const uint32_t laterId = sender.ops[j].sendIds.front();
    auto earlierIt = std::find(sender.ops[i].sends.begin(), sender.ops[i].sends.end(), peer);
    if (earlierIt == sender.ops[i].sends.end()) return false;
    const size_t earlierIndex = size_t(earlierIt - sender.ops[i].sends.begin());
    const uint32_t earlierId = sender.ops[i].sendIds[earlierIndex];
    const Instr *recvEarlier = plainReceive(earlierId), *recvLater = plainReceive(laterId);
    if (!recvEarlier || !recvLater || recvEarlier->step != recvLater->step) return false;
    const BufRef valueEarlier = sender.ops[i].srcs.front(), valueLater = sender.ops[j].srcs.front();
    if (!sender.unwrittenBetween(i, j, valueEarlier)) return false;

    // The two values next to each other on the sender, in either order.
    std::optional<std::pair<BufRef, BufRef>> span;  // (earlier's range, later's range)
    bool earlierFirst = false;
    for (const BufRef &a : sender.equalRanges(valueEarlier, j)) {
      for (const BufRef &b : sender.equalRanges(valueLater, j)) {
        if (follows(a, b) || follows(b, a)) {
          span = {a, b};
          earlierFirst = follows(a, b);
          break;
        }
      }
      if (span) break;
    }
    if (!span) return false;

    // The receiver writes them next to each other in the same order, with nothing between its
    // two receives that waits or touches the later one's range.
    const RecvAt atEarlier = receiveOf_.at(earlierId), atLater = receiveOf_.at(laterId);
    RankPlanOps &receiver = ranks_[size_t(peer)];
    const BufRef dstEarlier = recvEarlier->dsts.front(), dstLater = recvLater->dsts.front();
    if (earlierFirst ? !follows(dstEarlier, dstLater) : !follows(dstLater, dstEarlier))
      return false;
    const size_t first = std::min(atEarlier.op, atLater.op);
    const size_t second = std::max(atEarlier.op, atLater.op);
    const BufRef &secondDst = receiver.ops[second].dsts.front();
    for (size_t k = first + 1; k < second; ++k)
      if (receiver.ops[k].recv || receiver.touches(k, secondDst)) return false;

    // Merge: op j sends the joined range under the smaller id; the receiver's first receive
    // takes the joined destination.
    const uint32_t id = std::min(earlierId, laterId);
    const BufRef source = earlierFirst ? joined(span->first, span->second)
                                       : joined(span->second, span->first);
    const BufRef target =
        earlierFirst ? joined(dstEarlier, dstLater) : joined(dstLater, dstEarlier);
    sender.ops[i].sends.erase(earlierIt);
    sender.ops[i].sendIds.erase(sender.ops[i].sendIds.begin() + long(earlierIndex));
    if (sender.ops[i].sends.empty()) sender.ops[i] = Instr{};
    else sender.ops[i].kind = inferOpKind(sender.ops[i]);
    sender.ops[j].srcs = {source};
    sender.ops[j].sends = {peer};
    sender.ops[j].sendIds = {id};
    Instr &kept = receiver.ops[first];
    kept.recvId = id;
    kept.dsts = {target};
    receiver.ops[second] = Instr{};
    receiveOf_[id] = {peer, first};
    receiveOf_.erase(std::max(earlierId, laterId));
    return true;
  }

  std::vector<RankPlanOps> ranks_;
  std::vector<ReductionSplitter> reductions_;  ///< per rank
  std::unordered_map<uint32_t, RecvAt> receiveOf_;
  unsigned localOps_ = 0;
};

}  // namespace

CoalesceResult coalesceTransfers(ProgramOp program) {
  std::vector<RankPlanOps> ranks;
  std::vector<RankOp> rankOps;
  for (auto rankOp : program.getBody().front().getOps<RankOp>()) {
    const size_t rank = size_t(rankOp.getRank());
    if (ranks.size() <= rank) {
      ranks.resize(rank + 1);
      rankOps.resize(rank + 1);
    }
    rankOps[rank] = rankOp;
    ranks[rank].ops = readRankOps(rankOp);
    ranks[rank].layout = unitLayout(program, int(rank));
  }
  const CollectiveSpec spec = CollectiveSpec::fromOp(program);
  const int blocks = messageBlocks(spec.kind, spec.ranks);
  const uint32_t units = uint32_t(program.getUnits());
  Coalescer coalescer(std::move(ranks), uint32_t(program.getScratch()),
                      blocks > 0 ? units / uint32_t(blocks) : units);
  CoalesceResult result;
  result.transfers = coalescer.run();
  result.localOps = coalescer.localOps();
  if (!result.transfers && !result.localOps) return result;
  for (size_t rank = 0; rank < rankOps.size(); ++rank)
    if (rankOps[rank]) writeRankOps(rankOps[rank], coalescer.ranks()[rank].ops);
  const uint32_t scratch = std::max(uint32_t(program.getScratch()), coalescer.scratchUnits());
  program.setScratchAttr(OpBuilder(program).getI64IntegerAttr(scratch));
  return result;
}

}  // namespace collplan
