// Flat lowerings: the root sends to every rank (broadcast, scatter) or hears from every rank
// (gather, reduce), one peer per round, peers in rank order starting after the root.
#include "compiler/lowering/Algorithms.h"

using namespace mlir;

namespace collplan {
namespace {

/// The non-root ranks in the order the root serves them: root+1, root+2, ... (mod N).
std::vector<int> peersOfRoot(const CollectiveSpec &spec) {
  std::vector<int> peers;
  for (int k = 1; k < spec.ranks; ++k) peers.push_back((spec.root + k) % spec.ranks);
  return peers;
}

/// Broadcast: every chunk goes from the root straight to every rank.
void buildFlatBroadcast(ScheduleBuilder &b) {
  const CollectiveSpec &spec = b.spec();
  std::vector<int> peers = peersOfRoot(spec);
  for (int c = 0; c < spec.chunks; ++c) {
    Value mine = b.input(spec.root, c);
    b.output(mine, spec.root, c);
    for (size_t k = 0; k < peers.size(); ++k) {
      b.setStep(int(c * peers.size() + k));
      b.output(b.copy(mine, peers[k]), peers[k], c);
    }
  }
}

/// Scatter: the root sends block r to rank r.
void buildFlatScatter(ScheduleBuilder &b) {
  const CollectiveSpec &spec = b.spec();
  b.output(b.input(spec.root, spec.root), spec.root, 0);
  std::vector<int> peers = peersOfRoot(spec);
  for (size_t k = 0; k < peers.size(); ++k) {
    b.setStep(int(k));
    b.output(b.copy(b.input(spec.root, peers[k]), peers[k]), peers[k], 0);
  }
}

/// Gather: every rank sends its block to the root.
void buildFlatGather(ScheduleBuilder &b) {
  const CollectiveSpec &spec = b.spec();
  b.output(b.input(spec.root, 0), spec.root, spec.root);
  std::vector<int> peers = peersOfRoot(spec);
  for (size_t k = 0; k < peers.size(); ++k) {
    b.setStep(int(k));
    b.output(b.copy(b.input(peers[k], 0), spec.root), spec.root, peers[k]);
  }
}

/// Reduce: every rank sends its chunk to the root, which folds all of them in rank order.
void buildFlatReduce(ScheduleBuilder &b) {
  const CollectiveSpec &spec = b.spec();
  std::vector<int> peers = peersOfRoot(spec);
  for (int c = 0; c < spec.chunks; ++c) {
    SmallVector<Value> byRank(spec.ranks);
    byRank[spec.root] = b.input(spec.root, c);
    for (size_t k = 0; k < peers.size(); ++k) {
      b.setStep(int(c * peers.size() + k));
      byRank[peers[k]] = b.copy(b.input(peers[k], c), spec.root);
    }
    b.setStep(-1);
    b.output(b.reduce(byRank, spec.root), spec.root, c);
  }
}

void buildFlat(ScheduleBuilder &b, const AlgorithmParams &) {
  switch (b.spec().kind) {
  case CollectiveKind::Broadcast: buildFlatBroadcast(b); break;
  case CollectiveKind::Scatter: buildFlatScatter(b); break;
  case CollectiveKind::Gather: buildFlatGather(b); break;
  default: buildFlatReduce(b); break;
  }
  b.setStep(-1);
}

}  // namespace

void registerFlatAlgorithms(AlgorithmRegistry &registry) {
  AlgorithmInfo flat;
  flat.name = "flat";
  flat.summary = "the root sends to / receives from every rank directly, in rank order";
  flat.kinds = {CollectiveKind::Broadcast, CollectiveKind::Scatter, CollectiveKind::Gather,
                CollectiveKind::Reduce};
  flat.chunks = [](const CollectiveSpec &, const AlgorithmParams &) { return 1; };
  flat.build = buildFlat;
  flat.messages = [](const CollectiveSpec &s, const AlgorithmParams &) -> std::optional<int> {
    const bool fromRoot = s.kind == CollectiveKind::Broadcast || s.kind == CollectiveKind::Scatter;
    return fromRoot ? s.ranks - 1 : 1;
  };
  registry.add(std::move(flat));
}

}  // namespace collplan
