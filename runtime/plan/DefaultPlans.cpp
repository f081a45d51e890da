// Built-in plan generators (ring, two-shot, recursive doubling and halving, binomial, flat,
// direct, dissemination) for any rank count.
#include "runtime/plan/DefaultPlans.h"
#include "runtime/core/Text.h"

#include "runtime/plan/DefaultRules.h"

#include <stdexcept>
#include <string>

namespace collplan {
namespace {

BufRef in(uint32_t unit, uint32_t units = 1) { return {BufferKind::In, unit, units}; }
BufRef out(uint32_t unit, uint32_t units = 1) { return {BufferKind::Out, unit, units}; }
BufRef tmp(uint32_t unit, uint32_t units = 1) { return {BufferKind::Tmp, unit, units}; }
/// `ref` narrowed to the units [first, end) of the plan (a ref that starts at unit 0).
BufRef part(BufRef ref, uint32_t first, uint32_t end) { return {ref.buf, first, end - first}; }

/// MPICH's fold of N ranks onto a power of two of "virtual" ranks, as the compiler's recursive
/// doubling and halving lower it: of the first 2*rem ranks each even one (an extra) hands its
/// data to the next one before the exchanges and gets its result back after them.
struct RankFold {
  explicit RankFold(int n) : pow2(floorPowerOfTwo(n)), rem(n - pow2) {}
  int pow2, rem;
  bool isExtra(int r) const { return r < 2 * rem && r % 2 == 0; }
  /// Whether `r` takes an extra's data (the odd one of the first 2*rem ranks).
  bool folds(int r) const { return r < 2 * rem && r % 2 == 1; }
  int virtualOf(int r) const { return r < 2 * rem ? r / 2 : r - rem; }
  int rankOf(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  /// The first block (rank) of virtual rank `v`'s: virtual ranks [a, b) own blocks
  /// [firstBlock(a), firstBlock(b)), one range.
  uint32_t firstBlock(int v) const { return uint32_t(v <= rem ? 2 * v : v + rem); }
  /// Rounds: the exchanges, and the fold and unfold where N is not a power of two.
  int rounds() const { return ceilLog2(pow2) + (rem ? 2 : 0); }
};

uint32_t mod(int a, int n) { return uint32_t(((a % n) + n) % n); }

/// Accumulates the per-rank programs of one plan, or of one rank (`onlyRank` >= 0): ops of
/// other ranks are dropped, and generators skip building them where they loop over ranks.
struct Builder {
  Plan plan;
  int onlyRank;

  Builder(CollectiveKind kind, int ranks, std::optional<ReduceOp> op, int root,
          const char *algorithm, uint32_t units, int onlyRank)
      : onlyRank(ranks > 1 ? onlyRank : -1) {
    if (ranks < 1)
      throw std::invalid_argument(std::string(algorithm) + ": ranks must be at least 1, got " +
                                  std::to_string(ranks));
    if (onlyRank < -1 || onlyRank >= ranks)
      throw std::invalid_argument(std::string(algorithm) + ": rank " + std::to_string(onlyRank) +
                                  " is out of range for " + std::to_string(ranks) + " ranks");
    if (needsRoot(kind) && (root < 0 || root >= ranks))
      throw std::invalid_argument(std::string(algorithm) + ": root " + std::to_string(root) +
                                  " is out of range for " + std::to_string(ranks) + " ranks");
    plan.collective = kind;
    plan.ranks = ranks;
    plan.op = op;
    plan.root = needsRoot(kind) ? root : 0;
    plan.algorithm = algorithm;
    plan.units = units;
    plan.inplaceSafe = true;
    plan.programs.resize(size_t(ranks));
    plan.onlyRank = this->onlyRank;
  }

  /// Whether `rank`'s program is built.
  bool builds(int rank) const { return onlyRank < 0 || rank == onlyRank; }

  /// Appends `op` to channel 0 of `rank`'s program with the kind its shape implies.
  void add(int rank, PlanOp op, int step) {
    if (!builds(rank)) return;
    op.kind = inferOpKind(op);
    op.step = step;
    plan.programs[size_t(rank)].channel(0).push_back(std::move(op));
  }

  Plan finish(double alphaRounds, double beta) {
    plan.predicted.alphaRounds = alphaRounds;
    plan.predicted.beta = beta;
    return std::move(plan);
  }
};

PlanOp makeOp(std::vector<BufRef> srcs, std::optional<int32_t> recv, uint32_t recvPos,
              std::vector<BufRef> dsts, std::vector<int32_t> sends) {
  PlanOp op;
  op.srcs = std::move(srcs);
  op.recv = recv;
  op.recvPos = recvPos;
  op.dsts = std::move(dsts);
  op.sends = std::move(sends);
  return op;
}

/// A one-rank plan of the given kind: copy the input to the output (nothing for a barrier).
Plan localPlan(CollectiveKind kind, std::optional<ReduceOp> op, int root, const char *algorithm,
               int onlyRank) {
  Builder b(kind, 1, op, root, algorithm, kind == CollectiveKind::Barrier ? 0 : 1, onlyRank);
  if (kind != CollectiveKind::Barrier) b.add(0, makeOp({in(0)}, {}, 0, {out(0)}, {}), 0);
  return b.finish(0, 0);
}

}  // namespace

OpKind inferOpKind(const PlanOp &op) {
  const size_t writes = op.dsts.size() + op.sends.size();
  if (!op.recv) {
    if (op.srcs.size() >= 2) return OpKind::Reduce;
    if (writes >= 2) return OpKind::Dup;
    return op.sends.empty() ? OpKind::Copy : OpKind::Send;
  }
  if (!op.srcs.empty()) return op.sends.empty() ? OpKind::RecvReduce : OpKind::RecvReduceSend;
  if (op.sends.empty() && op.dsts.size() <= 1) return OpKind::Recv;
  if (op.dsts.size() <= 1 && op.sends.size() == 1) return OpKind::RecvCopySend;
  return OpKind::Dup;
}

Plan ringAllReducePlan(int ranks, ReduceOp op, int onlyRank) {
  const int n = ranks;
  if (n == 1) return localPlan(CollectiveKind::AllReduce, op, 0, "ring", onlyRank);
  Builder b(CollectiveKind::AllReduce, n, op, 0, "ring", uint32_t(n), onlyRank);
  for (int r = 0; r < n; ++r) {
    if (!b.builds(r)) continue;
    const int left = int(mod(r - 1, n)), right = int(mod(r + 1, n));
    // Reduce-scatter: at step s rank r forwards the partial sum of chunk r - s.
    b.add(r, makeOp({in(mod(r, n))}, {}, 0, {}, {right}), 0);
    for (int s = 1; s < n - 1; ++s)
      b.add(r, makeOp({in(mod(r - s, n))}, left, 0, {}, {right}), s);
    // Last reduce-scatter step completes chunk r + 1: keep it and start the allgather.
    b.add(r, makeOp({in(mod(r + 1, n))}, left, 0, {out(mod(r + 1, n))}, {right}), n - 1);
    for (int t = 1; t < n - 1; ++t)
      b.add(r, makeOp({}, left, 0, {out(mod(r + 1 - t, n))}, {right}), n - 1 + t);
    b.add(r, makeOp({}, left, 0, {out(mod(r + 2, n))}, {}), 2 * n - 2);
  }
  return b.finish(2.0 * (n - 1), 2.0 * (n - 1) / n);
}

Plan ringAllGatherPlan(int ranks, int onlyRank) {
  const int n = ranks;
  if (n == 1) return localPlan(CollectiveKind::AllGather, {}, 0, "ring", onlyRank);
  Builder b(CollectiveKind::AllGather, n, {}, 0, "ring", uint32_t(n), onlyRank);
  for (int r = 0; r < n; ++r) {
    if (!b.builds(r)) continue;
    const int left = int(mod(r - 1, n)), right = int(mod(r + 1, n));
    // The own block is sent from the input, not from the copy written into the output: the
    // right neighbour reads lines no core has just dirtied (2 MiB, N=2: 103 us instead of
    // 139 us on the reference machine), and starts while this rank copies.
    b.add(r, makeOp({in(0)}, {}, 0, {}, {right}), 0);
    b.add(r, makeOp({in(0)}, {}, 0, {out(uint32_t(r))}, {}), 0);
    for (int t = 1; t < n - 1; ++t)
      b.add(r, makeOp({}, left, 0, {out(mod(r - t, n))}, {right}), t);
    b.add(r, makeOp({}, left, 0, {out(mod(r + 1, n))}, {}), n - 1);
  }
  return b.finish(n - 1, double(n - 1) / n);
}

Plan ringReduceScatterPlan(int ranks, ReduceOp op, int onlyRank) {
  const int n = ranks;
  if (n == 1) return localPlan(CollectiveKind::ReduceScatter, op, 0, "ring", onlyRank);
  Builder b(CollectiveKind::ReduceScatter, n, op, 0, "ring", uint32_t(n), onlyRank);
  for (int r = 0; r < n; ++r) {
    if (!b.builds(r)) continue;
    const int left = int(mod(r - 1, n)), right = int(mod(r + 1, n));
    // At step s rank r forwards the partial result of block r - 1 - s; block r ends on rank r.
    b.add(r, makeOp({in(mod(r - 1, n))}, {}, 0, {}, {right}), 0);
    for (int s = 1; s < n - 1; ++s)
      b.add(r, makeOp({in(mod(r - 1 - s, n))}, left, 0, {}, {right}), s);
    b.add(r, makeOp({in(uint32_t(r))}, left, 0, {out(0)}, {}), n - 1);
  }
  return b.finish(n - 1, double(n - 1) / n);
}

Plan twoShotAllReducePlan(int ranks, ReduceOp op, int onlyRank) {
  const int n = ranks;
  if (n == 1) return localPlan(CollectiveKind::AllReduce, op, 0, "two-shot", onlyRank);
  Builder b(CollectiveKind::AllReduce, n, op, 0, "two-shot", uint32_t(n), onlyRank);
  for (int r = 0; r < n; ++r) {
    if (!b.builds(r)) continue;
    const uint32_t mine = uint32_t(r);
    for (int k = 1; k < n; ++k) {
      const int p = int(mod(r + k, n));
      b.add(r, makeOp({in(uint32_t(p))}, {}, 0, {}, {p}), 0);
    }
    // Chunk r folded in ring order starting at r: in_r, in_{r+1}, ..., in_{r-1}. The chain of
    // recv_reduce ops into out[r] runs as one n-ary pass in the executor.
    for (int k = 1; k < n; ++k) {
      const int p = int(mod(r + k, n));
      const BufRef acc = k == 1 ? in(mine) : out(mine);
      b.add(r, makeOp({acc}, p, 1, {out(mine)}, {}), 1);
    }
    for (int k = 1; k < n; ++k) b.add(r, makeOp({out(mine)}, {}, 0, {}, {int(mod(r + k, n))}), 2);
    for (int k = 1; k < n; ++k) {
      const int p = int(mod(r - k, n));
      b.add(r, makeOp({}, p, 0, {out(uint32_t(p))}, {}), 3);
    }
  }
  return b.finish(2, 2.0 * (n - 1) / n);
}

Plan recursiveDoublingAllReducePlan(int ranks, ReduceOp op, int onlyRank) {
  const int n = ranks;
  if (n == 1) return localPlan(CollectiveKind::AllReduce, op, 0, "recursive-doubling", onlyRank);
  Builder b(CollectiveKind::AllReduce, n, op, 0, "recursive-doubling", 1, onlyRank);
  b.plan.scratchUnits = 1;
  // The exchanges run among pow2 "virtual" ranks v; the extras hand their input over first.
  const RankFold fold(n);
  const int exchanges = ceilLog2(fold.pow2);
  for (int r = 0; r < n; ++r) {
    if (!b.builds(r)) continue;
    if (fold.isExtra(r)) {
      b.add(r, makeOp({in(0)}, {}, 0, {}, {r + 1}), 0);
      b.add(r, makeOp({}, r + 1, 0, {out(0)}, {}), exchanges + 1);
      continue;
    }
    const bool folds = fold.folds(r);
    const int v = fold.virtualOf(r);
    // Who receives each value this rank makes: the exchange partners, then the extra rank.
    std::vector<int> receivers;
    for (int distance = 1; distance < fold.pow2; distance *= 2)
      receivers.push_back(fold.rankOf(v ^ distance));
    if (folds) receivers.push_back(r - 1);
    // The accumulator's writes alternate between tmp and out, ending in out: a buffer is
    // written again only after the partner's next message arrived, which it sent after
    // consuming the one that buffer published. Each write is sent on in the op that makes it.
    const int writes = exchanges + (folds ? 1 : 0);
    auto bufferOfWrite = [&](int w) { return (writes - w) % 2 == 0 ? out(0) : tmp(0); };
    BufRef acc = in(0);
    int written = 0, step = fold.rem ? 1 : 0;  // the exchanges follow the fold's round
    if (folds) {  // the extra's input first
      acc = bufferOfWrite(++written);
      b.add(r, makeOp({in(0)}, r - 1, 0, {acc}, {receivers[0]}), 0);
    } else {
      b.add(r, makeOp({in(0)}, {}, 0, {}, {receivers[0]}), step);
    }
    for (int k = 0; k < exchanges; ++k, ++step) {
      const int partner = receivers[size_t(k)];
      const bool lower = v < (v ^ (1 << k));
      const BufRef next = bufferOfWrite(++written);
      std::vector<int32_t> sendTo;
      if (size_t(k) + 1 < receivers.size()) sendTo.push_back(receivers[size_t(k) + 1]);
      b.add(r, makeOp({acc}, partner, lower ? 1 : 0, {next}, sendTo), step);
      acc = next;
    }
  }
  return b.finish(fold.rounds(), fold.rounds());
}

Plan recursiveDoublingAllGatherPlan(int ranks, int onlyRank) {
  const int n = ranks;
  if (n == 1) return localPlan(CollectiveKind::AllGather, {}, 0, "recursive-doubling", onlyRank);
  Builder b(CollectiveKind::AllGather, n, {}, 0, "recursive-doubling", uint32_t(n), onlyRank);
  const RankFold fold(n);
  const int unfoldStep = fold.rounds() - 1;
  for (int r = 0; r < n; ++r) {
    if (!b.builds(r)) continue;
    if (fold.isExtra(r)) {  // its block to its partner, and every block back from it
      b.add(r, makeOp({in(0)}, {}, 0, {}, {r + 1}), 0);
      b.add(r, makeOp({}, r + 1, 0, {out(0, uint32_t(n))}, {}), unfoldStep);
      continue;
    }
    const bool folds = fold.folds(r);
    const PlanOp ownCopy = makeOp({in(0)}, {}, 0, {out(uint32_t(r))}, {});
    if (folds) {  // its own block and the extra's, the pair's share of the first exchange
      b.add(r, ownCopy, 0);
      b.add(r, makeOp({}, r - 1, 0, {out(uint32_t(r - 1))}, {}), 0);
    }
    // Before the exchange at `distance` rank v holds the blocks of the `distance` virtual
    // ranks aligned with it; it swaps them for its partner's, one message each way.
    const int v = fold.virtualOf(r);
    int step = fold.rem ? 1 : 0;
    for (int distance = 1; distance < fold.pow2; distance *= 2, ++step) {
      const int mine = v & ~(distance - 1), theirs = (v ^ distance) & ~(distance - 1);
      const BufRef held = part(out(0), fold.firstBlock(mine), fold.firstBlock(mine + distance));
      const BufRef arriving =
          part(out(0), fold.firstBlock(theirs), fold.firstBlock(theirs + distance));
      // A rank that holds only its own block sends it from its input and copies it after.
      const bool ownBlockOnly = distance == 1 && !folds;
      b.add(r, makeOp({ownBlockOnly ? in(0) : held}, {}, 0, {}, {fold.rankOf(v ^ distance)}),
            step);
      if (ownBlockOnly) b.add(r, ownCopy, step);
      b.add(r, makeOp({}, fold.rankOf(v ^ distance), 0, {arriving}, {}), step);
    }
    if (fold.folds(r)) b.add(r, makeOp({out(0, uint32_t(n))}, {}, 0, {}, {r - 1}), unfoldStep);
  }
  return b.finish(fold.rounds(), double(n - 1) / n + (fold.rem ? 1 : 0));
}

Plan recursiveHalvingReduceScatterPlan(int ranks, ReduceOp op, int onlyRank) {
  const int n = ranks;
  if (n == 1)
    return localPlan(CollectiveKind::ReduceScatter, op, 0, "recursive-halving", onlyRank);
  Builder b(CollectiveKind::ReduceScatter, n, op, 0, "recursive-halving", uint32_t(n), onlyRank);
  b.plan.scratchUnits = uint32_t(n);
  const RankFold fold(n);
  const int unfoldStep = fold.rounds() - 1;
  for (int r = 0; r < n; ++r) {
    if (!b.builds(r)) continue;
    if (fold.isExtra(r)) {  // its whole input to its partner, its reduced block back from it
      b.add(r, makeOp({in(0, uint32_t(n))}, {}, 0, {}, {r + 1}), 0);
      b.add(r, makeOp({}, r + 1, 0, {out(0)}, {}), unfoldStep);
      continue;
    }
    // The partial sums live in `acc`: the input until something is folded into it, then tmp.
    // A tmp unit is written only while it is among the blocks kept, so never after it was sent.
    BufRef acc = in(0, uint32_t(n));
    if (fold.folds(r)) {  // the extra's input first: the lower rank's partial leads
      b.add(r, makeOp({acc}, r - 1, 0, {tmp(0, uint32_t(n))}, {}), 0);
      acc = tmp(0, uint32_t(n));
    }
    // Before the exchange at `distance` rank v holds the partial sums of the blocks of the
    // 2 * distance virtual ranks aligned with it: it sends the half its partner keeps and
    // folds the partner's partial of its own half into its own, the lower rank's first.
    const int v = fold.virtualOf(r);
    int step = fold.rem ? 1 : 0;
    for (int distance = fold.pow2 / 2; distance >= 1; distance /= 2, ++step) {
      const int partner = fold.rankOf(v ^ distance);
      const int kept = v & ~(distance - 1), given = (v ^ distance) & ~(distance - 1);
      const uint32_t keptFirst = fold.firstBlock(kept), keptEnd = fold.firstBlock(kept + distance);
      b.add(r,
            makeOp({part(acc, fold.firstBlock(given), fold.firstBlock(given + distance))}, {}, 0,
                   {}, {partner}),
            step);
      const bool last = distance == 1, ownBlockOnly = keptEnd - keptFirst == 1;
      const BufRef into = last && ownBlockOnly ? out(0) : part(tmp(0), keptFirst, keptEnd);
      b.add(r, makeOp({part(acc, keptFirst, keptEnd)}, partner, (v ^ distance) < v ? 0 : 1,
                      {into}, {}),
            step);
      acc = tmp(0, uint32_t(n));
    }
    if (fold.folds(r)) {  // the extra's block back, then this rank's own into its output
      b.add(r, makeOp({tmp(uint32_t(r - 1))}, {}, 0, {}, {r - 1}), unfoldStep);
      b.add(r, makeOp({tmp(uint32_t(r))}, {}, 0, {out(0)}, {}), unfoldStep);
    }
  }
  return b.finish(fold.rounds(), double(n - 1) / n + (fold.rem ? 1 : 0));
}

Plan flatBroadcastPlan(int ranks, int root, int onlyRank) {
  if (ranks == 1) return localPlan(CollectiveKind::Broadcast, {}, root, "flat", onlyRank);
  Builder b(CollectiveKind::Broadcast, ranks, {}, root, "flat", 1, onlyRank);
  for (int k = 1; k < ranks; ++k) {
    const int r = int(mod(root + k, ranks));
    b.add(root, makeOp({in(0)}, {}, 0, {}, {r}), k - 1);
    b.add(r, makeOp({}, root, 0, {out(0)}, {}), k - 1);
  }
  // The root's own copy last: the receivers read its message while it copies.
  b.add(root, makeOp({in(0)}, {}, 0, {out(0)}, {}), ranks - 2);
  return b.finish(ranks - 1, ranks - 1);
}

Plan binomialBroadcastPlan(int ranks, int root, int onlyRank) {
  if (ranks == 1) return localPlan(CollectiveKind::Broadcast, {}, root, "binomial-tree", onlyRank);
  Builder b(CollectiveKind::Broadcast, ranks, {}, root, "binomial-tree", 1, onlyRank);
  const int n = ranks;
  auto real = [&](int vr) { return int(mod(vr + root, n)); };
  for (int vr = 0; vr < n; ++vr) {
    if (!b.builds(real(vr))) continue;
    // The compiler's binomial tree: vr receives from vr minus its highest set bit h, in round
    // log2 h, then sends to vr + m for m = 2h, 4h, ... (the root: m = 1, 2, 4, ...), one op a
    // round: one value written to several places would need duplicated writes.
    const int r = real(vr);
    const int highest = vr == 0 ? 0 : floorPowerOfTwo(vr);
    int step = vr == 0 ? 0 : ceilLog2(highest) + 1;
    if (vr != 0) b.add(r, makeOp({}, real(vr - highest), 0, {out(0)}, {}), step - 1);
    const BufRef value = vr == 0 ? in(0) : out(0);
    for (int m = vr == 0 ? 1 : 2 * highest; vr + m < n; m *= 2)
      b.add(r, makeOp({value}, {}, 0, {}, {real(vr + m)}), step++);
    // The root's own copy last: its children read its messages while it copies.
    if (vr == 0) b.add(r, makeOp({in(0)}, {}, 0, {out(0)}, {}), step - 1);
  }
  return b.finish(ceilLog2(n), ceilLog2(n));
}

Plan binomialReducePlan(int ranks, int root, ReduceOp op, int onlyRank) {
  if (ranks == 1) return localPlan(CollectiveKind::Reduce, op, root, "binomial-tree", onlyRank);
  Builder b(CollectiveKind::Reduce, ranks, op, root, "binomial-tree", 1, onlyRank);
  b.plan.scratchUnits = 1;
  const int n = ranks;
  auto real = [&](int vr) { return int(mod(vr + root, n)); };
  for (int vr = 0; vr < n; ++vr) {
    const int r = real(vr);
    if (!b.builds(r)) continue;
    std::vector<int> children;
    int parent = -1;
    for (int mask = 1; mask < n; mask <<= 1) {
      if (vr & mask) {
        parent = real(vr & ~mask);
        break;
      }
      if ((vr | mask) < n) children.push_back(real(vr | mask));
    }
    // Fold: own input first, then the children's subtrees by increasing distance.
    const BufRef acc = vr == 0 ? out(0) : tmp(0);
    for (size_t k = 0; k < children.size(); ++k) {
      const bool last = k + 1 == children.size();
      std::vector<int32_t> sends;
      if (last && parent >= 0) sends.push_back(parent);
      b.add(r, makeOp({k == 0 ? in(0) : acc}, children[k], 1, {acc}, sends), int(k));
    }
    if (children.empty()) b.add(r, makeOp({in(0)}, {}, 0, {}, {parent}), 0);
  }
  return b.finish(ceilLog2(n), ceilLog2(n));
}

Plan flatGatherPlan(int ranks, int root, int onlyRank) {
  if (ranks == 1) return localPlan(CollectiveKind::Gather, {}, root, "flat", onlyRank);
  Builder b(CollectiveKind::Gather, ranks, {}, root, "flat", uint32_t(ranks), onlyRank);
  b.add(root, makeOp({in(0)}, {}, 0, {out(uint32_t(root))}, {}), 0);
  for (int k = 1; k < ranks; ++k) {
    const int p = int(mod(root + k, ranks));
    b.add(root, makeOp({}, p, 0, {out(uint32_t(p))}, {}), 1);
    b.add(p, makeOp({in(0)}, {}, 0, {}, {root}), 0);
  }
  return b.finish(ranks - 1, double(ranks - 1) / ranks);
}

Plan flatScatterPlan(int ranks, int root, int onlyRank) {
  if (ranks == 1) return localPlan(CollectiveKind::Scatter, {}, root, "flat", onlyRank);
  Builder b(CollectiveKind::Scatter, ranks, {}, root, "flat", uint32_t(ranks), onlyRank);
  for (int k = 1; k < ranks; ++k) {
    const int p = int(mod(root + k, ranks));
    b.add(root, makeOp({in(uint32_t(p))}, {}, 0, {}, {p}), 0);
    b.add(p, makeOp({}, root, 0, {out(0)}, {}), 1);
  }
  b.add(root, makeOp({in(uint32_t(root))}, {}, 0, {out(0)}, {}), 0);
  return b.finish(ranks - 1, double(ranks - 1) / ranks);
}

Plan directAllToAllPlan(int ranks, int onlyRank) {
  const int n = ranks;
  if (n == 1) return localPlan(CollectiveKind::AllToAll, {}, 0, "direct", onlyRank);
  Builder b(CollectiveKind::AllToAll, n, {}, 0, "direct", uint32_t(n), onlyRank);
  for (int r = 0; r < n; ++r) {
    if (!b.builds(r)) continue;
    for (int k = 1; k < n; ++k) {
      const int p = int(mod(r + k, n));
      b.add(r, makeOp({in(uint32_t(p))}, {}, 0, {}, {p}), k - 1);
    }
    // The own block between the sends and the receives: peers start on their messages first.
    b.add(r, makeOp({in(uint32_t(r))}, {}, 0, {out(uint32_t(r))}, {}), n - 2);
    for (int k = 1; k < n; ++k) {
      const int q = int(mod(r - k, n));
      b.add(r, makeOp({}, q, 0, {out(uint32_t(q))}, {}), k - 1);
    }
  }
  return b.finish(n - 1, double(n - 1) / n);
}

Plan disseminationBarrierPlan(int ranks, int onlyRank) {
  if (ranks == 1) return localPlan(CollectiveKind::Barrier, {}, 0, "dissemination", onlyRank);
  Builder b(CollectiveKind::Barrier, ranks, {}, 0, "dissemination", 0, onlyRank);
  const int n = ranks;
  for (int k = 0, dist = 1; dist < n; ++k, dist <<= 1)
    for (int r = 0; r < n; ++r) {
    if (!b.builds(r)) continue;
      b.add(r, makeOp({}, {}, 0, {}, {int(mod(r + dist, n))}), k);
      b.add(r, makeOp({}, int(mod(r - dist, n)), 0, {}, {}), k);
    }
  return b.finish(ceilLog2(n), 0);
}

bool BuiltInPlan::serves(CollectiveKind kind) const {
  for (CollectiveKind k : kinds)
    if (k == kind) return true;
  return false;
}

const std::vector<BuiltInPlan> &builtInPlans() {
  using K = CollectiveKind;
  using U = uint64_t;
  static const std::vector<BuiltInPlan> plans = {
      {"ring", {K::AllReduce, K::AllGather, K::ReduceScatter},
       [](K kind, int n, ReduceOp op, int, int only) {
         return kind == K::AllReduce   ? ringAllReducePlan(n, op, only)
                : kind == K::AllGather ? ringAllGatherPlan(n, only)
                                       : ringReduceScatterPlan(n, op, only);
       },
       [](K kind, int n) {
         return kind == K::AllReduce ? U(n) * U(2 * n - 1) : U(n) * U(n + 1);
       }},
      {"two-shot", {K::AllReduce},
       [](K, int n, ReduceOp op, int, int only) { return twoShotAllReducePlan(n, op, only); },
       [](K, int n) { return n == 1 ? U(1) : 4 * U(n) * U(n - 1); }},
      {"recursive-doubling", {K::AllReduce, K::AllGather},
       [](K kind, int n, ReduceOp op, int, int only) {
         return kind == K::AllReduce ? recursiveDoublingAllReducePlan(n, op, only)
                                     : recursiveDoublingAllGatherPlan(n, only);
       },
       [](K kind, int n) {
         return kind == K::AllReduce ? U(n) * U(ceilLog2(n) + 1)
                : n == 1             ? U(1)
                                     : U(n) * U(2 * ceilLog2(n) + 1);
       }},
      {"recursive-halving", {K::ReduceScatter},
       [](K, int n, ReduceOp op, int, int only) {
         return recursiveHalvingReduceScatterPlan(n, op, only);
       },
       [](K, int n) { return n == 1 ? U(1) : U(n) * U(2 * ceilLog2(n) + 1); }},
      {"binomial-tree", {K::Broadcast, K::Reduce},
       [](K kind, int n, ReduceOp op, int root, int only) {
         return kind == K::Broadcast ? binomialBroadcastPlan(n, root, only)
                                     : binomialReducePlan(n, root, op, only);
       },
       [](K, int n) { return 2 * U(n); }},
      {"flat", {K::Broadcast, K::Gather, K::Scatter},
       [](K kind, int n, ReduceOp, int root, int only) {
         return kind == K::Broadcast ? flatBroadcastPlan(n, root, only)
                : kind == K::Gather  ? flatGatherPlan(n, root, only)
                                     : flatScatterPlan(n, root, only);
       },
       [](K, int n) { return 2 * U(n); }},
      {"direct", {K::AllToAll},
       [](K, int n, ReduceOp, int, int only) { return directAllToAllPlan(n, only); },
       [](K, int n) { return U(n) * U(2 * n - 1); }},
      {"dissemination", {K::Barrier},
       [](K, int n, ReduceOp, int, int only) { return disseminationBarrierPlan(n, only); },
       [](K, int n) { return 2 * U(n) * U(ceilLog2(n)); }},
  };
  return plans;
}

const BuiltInPlan *findBuiltInPlan(std::string_view name, CollectiveKind kind) {
  for (const BuiltInPlan &p : builtInPlans())
    if (p.name == name && p.serves(kind)) return &p;
  return nullptr;
}

Plan defaultPlan(CollectiveKind kind, int ranks, std::optional<ReduceOp> op, int root,
                 uint64_t messageBytes) {
  if (needsReduceOp(kind) && !op)
    throw std::invalid_argument("defaultPlan: " + std::string(toString(kind)) +
                                " needs a reduction op");
  const BuiltInPlan &plan = defaultRules().planFor(kind, ranks, messageBytes);
  return plan.make(kind, ranks, op.value_or(ReduceOp::Sum), root, -1);
}

}  // namespace collplan
