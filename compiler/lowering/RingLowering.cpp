// Ring and line lowerings: allgather, reduce-scatter and allreduce (= reduce-scatter + allgather).
//
// A ring is a cyclic rank order; a "lane" is one ring in one direction. With C channels and
// bidirectional rings there are C x 2 lanes, and lane l carries slice l of every block, so the
// lanes split the data evenly and run concurrently.
#include "compiler/lowering/Algorithms.h"

#include "runtime/topology/Queries.h"
#include "runtime/topology/Topology.h"

#include <algorithm>

using namespace mlir;

namespace collplan {
namespace {

int lanesOf(const AlgorithmParams &p) {
  return p.getInt("channels") * (p.getBool("bidirectional") ? 2 : 1);
}

/// The rank order of every lane: one per channel (the topology's link-disjoint Hamiltonian
/// cycles when it has several, else the ring order), each also reversed when bidirectional.
std::vector<std::vector<int>> laneOrders(const AlgorithmParams &p, int ranks) {
  const int channelCount = p.getInt("channels");
  std::vector<std::vector<int>> channels;
  if (p.topology && channelCount > 1) {
    for (const auto &cycle : hamiltonianCycles(*p.topology, channelCount))
      channels.push_back(ranksInDeviceOrder(*p.topology, cycle));
  } else {
    channels.assign(channelCount, ringOrderFor(p, ranks));
  }
  std::vector<std::vector<int>> lanes;
  for (const auto &order : channels) {
    lanes.push_back(order);
    if (p.getBool("bidirectional")) lanes.emplace_back(order.rbegin(), order.rend());
  }
  return lanes;
}

std::optional<std::string> checkRing(const CollectiveSpec &spec, const AlgorithmParams &p) {
  if (auto bad = checkRankOrder(spec, p)) return bad;
  const int channels = p.getInt("channels");
  if (p.topology && channels > 1) {
    size_t rings = hamiltonianCycles(*p.topology, channels).size();
    if (int(rings) < channels)
      return "channels " + std::to_string(channels) + " exceed the " + std::to_string(rings) +
             " link-disjoint rings of topology '" + p.topology->name + "'";
  }
  return std::nullopt;
}

/// Reduces block `block` (chunk `chunk`, slice `lane`) along `order` so that it ends at the
/// rank at position `endPos`; returns the full reduction there. Intermediate steps use the
/// fused reduce-then-send, so each rank reads two operands and writes once downstream.
Value reduceAlong(ScheduleBuilder &b, const std::vector<int> &order, int endPos, int chunk,
                  int lane, int firstStep) {
  int n = int(order.size());
  auto at = [&](int k) { return order[(endPos + 1 + k) % n]; };  // k = 0 .. n-1
  if (n == 1) return b.input(order[0], chunk, lane);
  b.setStep(firstStep);
  Value partial = b.copy(b.input(at(0), chunk, lane), at(1));
  for (int k = 1; k + 1 < n; ++k) {
    b.setStep(firstStep + k);
    partial = b.copy(b.reduce({partial, b.input(at(k), chunk, lane)}, at(k)), at(k + 1));
  }
  b.setStep(-1);
  return b.reduce({partial, b.input(at(n - 1), chunk, lane)}, at(n - 1));
}

/// Circulates `value` (resident at order[startPos]) around the ring, binding it as output
/// chunk `chunk` slice `lane` on every rank.
void gatherAlong(ScheduleBuilder &b, const std::vector<int> &order, int startPos, Value value,
                 int chunk, int lane, int firstStep) {
  int n = int(order.size());
  b.output(value, order[startPos], chunk, lane);
  for (int k = 1; k < n; ++k) {
    b.setStep(firstStep + k - 1);
    value = b.copy(value, order[(startPos + k) % n]);
    b.output(value, order[(startPos + k) % n], chunk, lane);
  }
  b.setStep(-1);
}

void buildRing(ScheduleBuilder &b, const AlgorithmParams &p) {
  const CollectiveSpec &spec = b.spec();
  int n = spec.ranks;
  auto lanes = laneOrders(p, n);
  for (int lane = 0; lane < int(lanes.size()); ++lane) {
    const auto &order = lanes[lane];
    if (int(lanes.size()) > 1) b.setChannel(lane);
    for (int pos = 0; pos < n; ++pos) {
      int owner = order[pos];
      switch (spec.kind) {
      case CollectiveKind::AllGather:
        gatherAlong(b, order, pos, b.input(owner, 0, lane), owner, lane, 0);
        break;
      case CollectiveKind::ReduceScatter:
        b.output(reduceAlong(b, order, pos, owner, lane, 0), owner, 0, lane);
        break;
      default: {  // allreduce: chunk `pos` ends reduced at order[pos], then circulates
        Value reduced = reduceAlong(b, order, pos, pos, lane, 0);
        gatherAlong(b, order, pos, reduced, pos, lane, n - 1);
        break;
      }
      }
    }
  }
  b.setChannel(-1);
}

/// Line (open chain): block b travels from its owner towards both ends (allgather), or partial
/// sums travel from both ends towards the owner, which folds left + own + right.
void buildLine(ScheduleBuilder &b, const AlgorithmParams &p) {
  const CollectiveSpec &spec = b.spec();
  int n = spec.ranks;
  std::vector<int> order = ringOrderFor(p, n);
  for (int pos = 0; pos < n; ++pos) {
    int owner = order[pos];
    if (spec.kind == CollectiveKind::AllGather) {
      Value mine = b.input(owner, 0);
      b.output(mine, owner, owner);
      for (int dir : {-1, +1}) {
        Value v = mine;
        for (int q = pos + dir, step = 0; q >= 0 && q < n; q += dir, ++step) {
          b.setStep(step);
          v = b.copy(v, order[q]);
          b.output(v, order[q], owner);
        }
      }
    } else {  // reduce-scatter
      SmallVector<Value> operands;
      for (int dir : {-1, +1}) {
        int end = dir < 0 ? 0 : n - 1;
        if (end == pos) continue;
        // Partial sum from `end` towards `pos`, excluding the owner.
        Value partial;
        int step = 0;
        for (int q = end; q != pos; q -= dir, ++step) {
          Value own = b.input(order[q], owner);
          int next = order[q - dir];
          b.setStep(step);
          partial = partial ? b.copy(b.reduce({partial, own}, order[q]), next) : b.copy(own, next);
        }
        operands.push_back(partial);
      }
      b.setStep(-1);
      // Fold order: left partial, own, right partial (the same on every rank: one copy).
      SmallVector<Value> fold;
      if (pos > 0) fold.push_back(operands.front());
      fold.push_back(b.input(owner, owner));
      if (pos < n - 1) fold.push_back(operands.back());
      b.output(b.reduce(fold, owner), owner, 0);
    }
  }
  b.setStep(-1);
}

/// An op of rank 0's ring program, receiving from N-1 and/or sending to 1 as `kind` says.
PlanOp ringOp(OpKind kind, int ranks, int step) {
  PlanOp op;
  op.kind = kind;
  if (kind != OpKind::Send && kind != OpKind::Copy) op.recv = ranks - 1;
  if (kind == OpKind::Send || kind == OpKind::RecvReduceSend || kind == OpKind::RecvCopySend)
    op.sends = {1};
  op.step = step;
  return op;
}

/// Rank 0's program of the one-lane ring in rank order, every other rank's its rotation. In
/// step s rank 0 receives from N-1 the block s positions behind its own and passes it on to 1:
/// the reduce-scatter folds its own chunk N-1-s in, ending with chunk 0 reduced; the allgather
/// stores and forwards block N-s; an allreduce does both, the second phase on the reduced
/// chunks. Other lane counts and rank orders are compiled from every rank's schedule.
std::optional<SymmetricProgram> ringSymmetricProgram(const CollectiveSpec &spec,
                                                     const AlgorithmParams &p) {
  const int n = spec.ranks;
  const std::vector<int> order = ringOrderFor(p, n);  // a permutation (checkRing)
  if (n < 2 || lanesOf(p) != 1 || !std::is_sorted(order.begin(), order.end()))
    return std::nullopt;
  const bool reduces = spec.kind != CollectiveKind::AllGather;
  const bool gathers = spec.kind != CollectiveKind::ReduceScatter;
  SymmetricProgram out;
  out.symmetry = PlanSymmetry{SymmetryGroup::Rotation, 1, {}};
  out.units = uint32_t(n);
  out.inplaceSafe = true;
  std::vector<PlanOp> &ops = out.base.channel(0);
  int step = 0;
  if (reduces) {
    ops.push_back(ringOp(OpKind::Send, n, 1));
    ops.back().srcs = {unitRange(BufferKind::In, n - 1)};
    for (step = 1; step < n; ++step) {
      const bool last = step == n - 1;
      ops.push_back(ringOp(last && !gathers ? OpKind::RecvReduce : OpKind::RecvReduceSend, n,
                           step));
      ops.back().srcs = {unitRange(BufferKind::In, n - 1 - step)};
      if (last) ops.back().dsts = {unitRange(BufferKind::Out, 0)};
    }
    --step;
  } else {
    ops.push_back(ringOp(OpKind::Send, n, 1));
    ops.back().srcs = {unitRange(BufferKind::In, 0)};
    ops.push_back(ringOp(OpKind::Copy, n, -1));
    ops.back().srcs = {unitRange(BufferKind::In, 0)};
    ops.back().dsts = {unitRange(BufferKind::Out, 0)};
  }
  if (gathers)
    for (int block = n - 1; block >= 1; --block) {
      ops.push_back(ringOp(block == 1 ? OpKind::Recv : OpKind::RecvCopySend, n, ++step));
      ops.back().dsts = {unitRange(BufferKind::Out, block)};
    }
  // A one-lane ring cuts M into N chunks of one unit, one chunk per message.
  const int messages = (reduces ? n - 1 : 0) + (gathers ? n - 1 : 0);
  for (int round = 0; round < messages; ++round) out.addRound(1.0 / n);
  out.transfers = int64_t(messages) * n;
  out.bytesMoved = double(messages);  // N ranks send messages of M / N each
  return out;
}

/// The ring and line orders: a permutation of the ranks.
ParamSpec orderParam() {
  return intListParam("order", 0, kMaxRanks - 1,
                      "ring/line rank order, a permutation of the ranks (default: the "
                      "topology's ring, else 0..N-1)");
}

}  // namespace

void registerRingAlgorithms(AlgorithmRegistry &registry) {
  AlgorithmInfo ring;
  ring.name = "ring";
  ring.summary = "ring reduce-scatter / allgather (allreduce = both); channels, bidirectional, "
                 "order from the topology";
  ring.kinds = {CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
                CollectiveKind::AllReduce};
  ring.params = {intParam("channels", 1, 1, kMaxCount,
                          "rings over disjoint link sets (the topology's Hamiltonian cycles)",
                          "ch"),
                 boolParam("bidirectional", false, "half of every block goes each way", "bidir"),
                 orderParam()};
  ring.tuning = {fixedAxis("channels", {"1", "2"}, 2),
                 fixedAxis("bidirectional", {"false", "true"}, 2)};
  ring.check = checkRing;
  ring.chunks = [](const CollectiveSpec &s, const AlgorithmParams &) { return s.ranks; };
  ring.slices = [](const CollectiveSpec &, const AlgorithmParams &p) { return lanesOf(p); };
  ring.build = buildRing;
  ring.symmetricProgram = ringSymmetricProgram;
  ring.ncclAlgorithm = "ring";
  ring.messages = [](const CollectiveSpec &s, const AlgorithmParams &p) -> std::optional<int> {
    return (s.kind == CollectiveKind::AllReduce ? 2 : 1) * (s.ranks - 1) * lanesOf(p);
  };
  registry.add(std::move(ring));

  AlgorithmInfo line;
  line.name = "line";
  line.summary = "open chain: blocks travel from their owner towards both ends";
  line.kinds = {CollectiveKind::AllGather, CollectiveKind::ReduceScatter};
  line.params = {orderParam()};
  line.check = checkRankOrder;
  line.build = buildLine;
  // An inner rank passes every block on towards both ends (allgather: its own and the i blocks
  // from one side one way, the N-1-i from the other side the other way); a reduce-scatter sends
  // one partial sum of the far side's blocks each way.
  line.messages = [](const CollectiveSpec &s, const AlgorithmParams &) -> std::optional<int> {
    if (s.ranks == 2) return 1;
    return s.kind == CollectiveKind::AllGather ? s.ranks + 1 : 2;
  };
  registry.add(std::move(line));
}

}  // namespace collplan
