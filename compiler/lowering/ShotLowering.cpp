// One-shot and two-shot allreduce by direct reads of peers' buffers (vLLM's custom allreduce).
//
// one-shot: every rank reads every peer's whole buffer and folds all N inputs in rank order.
// two-shot: rank c folds chunk c of every peer's buffer in rank order (reduce-scatter by reads),
// then every rank reads each reduced chunk from its owner (allgather by reads).
#include "compiler/lowering/Algorithms.h"

using namespace mlir;

namespace collplan {
namespace {

/// Chunk `chunk` of every rank's input, in rank order (the fold order every rank uses).
SmallVector<Value> inputsInRankOrder(ScheduleBuilder &b, int chunk) {
  SmallVector<Value> inputs;
  for (int s = 0; s < b.ranks(); ++s) inputs.push_back(b.input(s, chunk));
  return inputs;
}

void buildOneShot(ScheduleBuilder &b, const AlgorithmParams &) {
  b.setStep(0);
  for (int r = 0; r < b.ranks(); ++r) b.output(b.reduce(inputsInRankOrder(b, 0), r), r, 0);
  b.setStep(-1);
}

void buildTwoShot(ScheduleBuilder &b, const AlgorithmParams &) {
  int n = b.ranks();
  for (int owner = 0; owner < n; ++owner) {
    b.setStep(0);
    Value reduced = b.reduce(inputsInRankOrder(b, owner), owner);
    b.output(reduced, owner, owner);
    b.setStep(1);
    for (int k = 1; k < n; ++k) {
      int reader = (owner + k) % n;
      b.output(b.copy(reduced, reader), reader, owner);
    }
  }
  b.setStep(-1);
}

}  // namespace

void registerShotAlgorithms(AlgorithmRegistry &registry) {
  AlgorithmInfo oneShot;
  oneShot.name = "one-shot";
  oneShot.summary = "every rank reads all peers' buffers and reduces them in rank order";
  oneShot.kinds = {CollectiveKind::AllReduce};
  oneShot.remoteReads = true;
  oneShot.chunks = [](const CollectiveSpec &, const AlgorithmParams &) { return 1; };
  oneShot.build = buildOneShot;
  oneShot.messages = messagesToEveryPeer<1>;
  registry.add(std::move(oneShot));

  AlgorithmInfo twoShot;
  twoShot.name = "two-shot";
  twoShot.summary = "reduce-scatter by direct reads, then allgather of the reduced chunks";
  twoShot.kinds = {CollectiveKind::AllReduce};
  twoShot.remoteReads = true;
  twoShot.chunks = [](const CollectiveSpec &s, const AlgorithmParams &) { return s.ranks; };
  twoShot.build = buildTwoShot;
  twoShot.messages = messagesToEveryPeer<2>;
  registry.add(std::move(twoShot));
}

}  // namespace collplan
