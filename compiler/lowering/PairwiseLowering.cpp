// Pairwise lowerings: pairwise-exchange, direct and Bruck all-to-all, and the dissemination and
// pairwise (recursive-doubling exchange) barriers.
#include "compiler/lowering/Algorithms.h"
#include "runtime/core/Text.h"

#include <algorithm>

using namespace mlir;

namespace collplan {
namespace {

/// All-to-all in N-1 rounds: in round k rank r sends its block for `to(r, k)`, with
/// to = r XOR k when N is a power of two (partners swap) and (r + k) mod N otherwise
/// (r receives from (r - k) mod N), so every rank sends and receives once per round.
void buildPairwiseAllToAll(ScheduleBuilder &b, const AlgorithmParams &) {
  int n = b.ranks();
  bool xorPartners = isPowerOfTwo(n);
  for (int r = 0; r < n; ++r) b.output(b.input(r, r), r, r);
  for (int k = 1; k < n; ++k) {
    b.setStep(k - 1);
    for (int r = 0; r < n; ++r) {
      int to = xorPartners ? r ^ k : (r + k) % n;
      b.output(b.copy(b.input(r, to), to), to, r);
    }
  }
  b.setStep(-1);
}

/// All-to-all with every transfer in one round: each rank posts its N-1 sends (to r+1, r+2,
/// ...) before any receive, so no send waits for a receive. Where ranks outnumber cores or a
/// send costs little beside its hand-off, this beats pairwise's N-1 dependent rounds.
void buildDirectAllToAll(ScheduleBuilder &b, const AlgorithmParams &) {
  int n = b.ranks();
  for (int r = 0; r < n; ++r) b.output(b.input(r, r), r, r);
  b.setStep(0);
  for (int k = 1; k < n; ++k)
    for (int r = 0; r < n; ++r) {
      int to = (r + k) % n;
      b.output(b.copy(b.input(r, to), to), to, r);
    }
  b.setStep(-1);
}

/// Bruck's all-to-all in ceil(log2 N) rounds: in round k every rank passes, to
/// (r + 2^k) mod N, each block it holds whose distance to its destination ((dst - holder) mod
/// N) has bit k set, so after the last round every block is home. A round's blocks are first
/// copied side by side (MPICH packs them with a datatype), so each round is one message of
/// about N/2 blocks: log2 N messages and hand-offs instead of direct's N - 1, for the extra
/// copies and the log2 N / 2 times the bytes.
void buildBruckAllToAll(ScheduleBuilder &b, const AlgorithmParams &) {
  int n = b.ranks();
  struct Held {
    int source, destination;
    Value value;
  };
  std::vector<std::vector<Held>> held(n);
  for (int r = 0; r < n; ++r) {
    b.output(b.input(r, r), r, r);
    for (int distance = 1; distance < n; ++distance)
      held[r].push_back({r, (r + distance) % n, b.input(r, (r + distance) % n)});
  }
  auto distanceOf = [n](const Held &h, int holder) { return (h.destination - holder + n) % n; };
  for (int hop = 1, round = 0; hop < n; hop *= 2, ++round) {
    b.setStep(round);
    std::vector<std::vector<Held>> next(n);
    for (int r = 0; r < n; ++r) {
      int to = (r + hop) % n;
      std::vector<Held> moving;
      for (const Held &h : held[r])
        (distanceOf(h, r) & hop ? moving : next[r]).push_back(h);
      std::sort(moving.begin(), moving.end(), [&](const Held &x, const Held &y) {
        return distanceOf(x, r) < distanceOf(y, r);
      });
      for (Held &h : moving) h.value = b.copy(h.value, r);
      for (Held &h : moving) next[to].push_back({h.source, h.destination, b.copy(h.value, to)});
    }
    held = std::move(next);
  }
  b.setStep(-1);
  for (int r = 0; r < n; ++r)
    for (const Held &h : held[r]) b.output(b.copy(h.value, r), r, h.source);
}

/// Dissemination barrier: in round k rank r passes everything it has heard of to
/// (r + 2^k) mod N; after ceil(log2 N) rounds every rank has heard of every rank.
void buildDissemination(ScheduleBuilder &b, const AlgorithmParams &) {
  int n = b.ranks();
  std::vector<Value> heard(n);
  for (int r = 0; r < n; ++r) heard[r] = b.input(r, 0);
  for (int distance = 1, round = 0; distance < n; distance *= 2, ++round) {
    b.setStep(round);
    std::vector<Value> arrived(n);
    for (int r = 0; r < n; ++r) arrived[(r + distance) % n] = b.copy(heard[r], (r + distance) % n);
    for (int r = 0; r < n; ++r) heard[r] = b.reduce({heard[r], arrived[r]}, r);
  }
  b.setStep(-1);
  for (int r = 0; r < n; ++r) b.output(heard[r], r, 0);
}

/// Pairwise-exchange barrier: partners r XOR 2^k swap what they have heard of, log2 N rounds.
/// Other rank counts fold the first 2*rem ranks in pairs (the even one reports to the odd one
/// first and hears back last), as MPICH does.
void buildPairwiseBarrier(ScheduleBuilder &b, const AlgorithmParams &) {
  int n = b.ranks();
  int pow2 = floorPowerOfTwo(n), rem = n - pow2;
  auto rankOf = [&](int v) { return v < rem ? 2 * v + 1 : v + rem; };
  std::vector<Value> heard(n);
  for (int r = 0; r < n; ++r) heard[r] = b.input(r, 0);
  int step = 0;
  if (rem) {
    b.setStep(step++);
    for (int r = 0; r < 2 * rem; r += 2)
      heard[r + 1] = b.reduce({b.copy(heard[r], r + 1), heard[r + 1]}, r + 1);
  }
  for (int distance = 1; distance < pow2; distance *= 2) {
    b.setStep(step++);
    std::vector<Value> arrived(n);
    for (int v = 0; v < pow2; ++v)
      arrived[rankOf(v ^ distance)] = b.copy(heard[rankOf(v)], rankOf(v ^ distance));
    for (int v = 0; v < pow2; ++v) {
      int self = rankOf(v);
      heard[self] = v < (v ^ distance) ? b.reduce({heard[self], arrived[self]}, self)
                                       : b.reduce({arrived[self], heard[self]}, self);
    }
  }
  if (rem) {
    b.setStep(step++);
    for (int r = 0; r < 2 * rem; r += 2) heard[r] = b.copy(heard[r + 1], r);
  }
  b.setStep(-1);
  for (int r = 0; r < n; ++r) b.output(heard[r], r, 0);
}

/// An op of rank 0's all-to-all moving block `block`: a send of in[block] to rank `block`, or
/// a receive from rank `block` into out[block].
PlanOp blockOp(OpKind kind, int block, int step) {
  PlanOp op;
  op.kind = kind;
  op.step = step;
  const BufRef ref = unitRange(kind == OpKind::Send ? BufferKind::In : BufferKind::Out, block);
  if (kind == OpKind::Send) {
    op.sends = {block};
    op.srcs = {ref};
  } else {
    op.recv = block;
    op.dsts = {ref};
  }
  return op;
}

/// rank 0's own block copied into place.
PlanOp ownBlockCopy() {
  PlanOp copy;
  copy.kind = OpKind::Copy;
  copy.srcs = {unitRange(BufferKind::In, 0)};
  copy.dsts = {unitRange(BufferKind::Out, 0)};
  return copy;
}

/// The cost figures of an all-to-all of N-1 rounds, one block per rank and round.
void allToAllCost(SymmetricProgram &out, int n) {
  for (int round = 1; round < n; ++round) out.addRound(1.0 / n);
  out.transfers = int64_t(n) * (n - 1);
  out.bytesMoved = double(n - 1);
}

/// Rank 0's program of the direct all-to-all, every other rank's its rotation: every send
/// posted first (block k to rank k in round k), its own block copied, then the receives from
/// N-1 down to 1 (rank N-k sends to rank 0 in round k).
std::optional<SymmetricProgram> directSymmetricProgram(const CollectiveSpec &spec,
                                                       const AlgorithmParams &) {
  const int n = spec.ranks;
  if (n < 2) return std::nullopt;
  SymmetricProgram out;
  out.symmetry = PlanSymmetry{SymmetryGroup::Rotation, 1, {}};
  out.units = uint32_t(n);
  out.inplaceSafe = true;  // every read of `in` comes before the first receive
  std::vector<PlanOp> &ops = out.base.channel(0);
  for (int k = 1; k < n; ++k) ops.push_back(blockOp(OpKind::Send, k, k));
  ops.push_back(ownBlockCopy());
  for (int k = 1; k < n; ++k) ops.push_back(blockOp(OpKind::Recv, n - k, k));
  allToAllCost(out, n);
  return out;
}

/// Rank 0's program of the pairwise all-to-all: in round k it sends block k to its partner k
/// and receives that partner's block for it, the partner being r XOR k on a power of two (XOR
/// symmetry) and r + k / r - k otherwise (rotation: it receives from N-k). Its own block is
/// copied after the first send.
std::optional<SymmetricProgram> pairwiseSymmetricProgram(const CollectiveSpec &spec,
                                                         const AlgorithmParams &) {
  const int n = spec.ranks;
  if (n < 2) return std::nullopt;
  const bool xorPartners = (n & (n - 1)) == 0;
  SymmetricProgram out;
  // On 2 ranks XOR and rotation are one map; plans name it rotation (findSymmetry's order).
  out.symmetry = PlanSymmetry{xorPartners && n > 2 ? SymmetryGroup::Xor : SymmetryGroup::Rotation,
                              1, {}};
  out.units = uint32_t(n);
  // In place, a rotation's receive of block N-k lands on in[N-k] before round N-k sends it.
  out.inplaceSafe = xorPartners;
  std::vector<PlanOp> &ops = out.base.channel(0);
  for (int k = 1; k < n; ++k) {
    ops.push_back(blockOp(OpKind::Send, k, k));
    if (k == 1) ops.push_back(ownBlockCopy());
    ops.push_back(blockOp(OpKind::Recv, xorPartners ? k : n - k, k));
  }
  allToAllCost(out, n);
  return out;
}

}  // namespace

void registerPairwiseAlgorithms(AlgorithmRegistry &registry) {
  AlgorithmInfo pairwise;
  pairwise.name = "pairwise";
  pairwise.summary = "all-to-all in N-1 rounds: partner r XOR k (powers of two) or r +/- k";
  pairwise.kinds = {CollectiveKind::AllToAll};
  pairwise.build = buildPairwiseAllToAll;
  pairwise.symmetricProgram = pairwiseSymmetricProgram;
  pairwise.messages = messagesToEveryPeer<1>;
  registry.add(std::move(pairwise));

  AlgorithmInfo direct;
  direct.name = "direct";
  direct.summary = "all-to-all in one round: every send posted before any receive";
  direct.kinds = {CollectiveKind::AllToAll};
  direct.build = buildDirectAllToAll;
  direct.symmetricProgram = directSymmetricProgram;
  direct.sendsFirst = true;
  direct.messages = messagesToEveryPeer<1>;
  registry.add(std::move(direct));

  AlgorithmInfo bruck;
  bruck.name = "bruck";
  bruck.summary = "all-to-all in ceil(log2 N) rounds: blocks hop 2^k ranks on, packed per round";
  bruck.kinds = {CollectiveKind::AllToAll};
  bruck.build = buildBruckAllToAll;
  bruck.messages = [](const CollectiveSpec &s, const AlgorithmParams &) -> std::optional<int> {
    return ceilLog2(s.ranks);
  };
  registry.add(std::move(bruck));

  AlgorithmInfo dissemination;
  dissemination.name = "dissemination";
  dissemination.summary = "barrier in ceil(log2 N) rounds: rank r tells r + 2^k";
  dissemination.kinds = {CollectiveKind::Barrier};
  dissemination.build = buildDissemination;
  dissemination.messages = [](const CollectiveSpec &s,
                              const AlgorithmParams &) -> std::optional<int> {
    return ceilLog2(s.ranks);
  };
  registry.add(std::move(dissemination));

  AlgorithmInfo barrier;
  barrier.name = "pairwise-barrier";
  barrier.summary = "barrier by pairwise exchanges with r XOR 2^k (non-powers of two folded)";
  barrier.kinds = {CollectiveKind::Barrier};
  barrier.build = buildPairwiseBarrier;
  barrier.messages = [](const CollectiveSpec &s, const AlgorithmParams &) -> std::optional<int> {
    return foldedRounds(s.ranks);
  };
  registry.add(std::move(barrier));
}

}  // namespace collplan
