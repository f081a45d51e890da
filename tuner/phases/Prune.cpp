// The cost model's constants and pruning by prediction, applied to plan-tune's tables.
#include "tuner/phases/Prune.h"

#include <algorithm>

namespace collplan::tune {
namespace {

/// The candidate of `t` with the fewest α-rounds (and some β), or nullptr.
const CompiledVariant *alphaProbe(const TableResult &t) {
  const CompiledVariant *probe = nullptr;
  for (size_t i = 0; i < t.variants.size(); ++i) {
    const CompiledVariant &v = t.variants[i];
    if (t.measurements.eligible[i] && v.beta > 0 && (!probe || v.alphaRounds < probe->alphaRounds))
      probe = &v;
  }
  return probe;
}

/// "allreduce f32 sum: 3 of 20 runnable variants pruned (...), 17 to measure at 22 sizes".
std::string prunedLine(const TableResult &t, double factor, int pruned) {
  const auto &eligible = t.measurements.eligible;
  const int left = int(std::count(eligible.begin(), eligible.end(), true));
  return "plan-tune: " + t.name() + ": " + std::to_string(pruned) + " of " +
         std::to_string(left + pruned) + " runnable variants pruned (" +
         (factor >= kNoPruning ? std::string("no pruning on sim: every variant is simulated")
                               : "predicted > " + std::to_string(int(factor)) +
                                     "x the best prediction at every size") +
         "), " + std::to_string(left) + " to measure at " +
         std::to_string(t.measurements.sizes.size()) + " sizes";
}

void pruneTable(TableResult &t, const AlphaBeta &ab, double factor, TuneLog &log) {
  std::vector<uint64_t> bytes;
  for (const measure::SizePoint &p : t.measurements.sizes) bytes.push_back(p.bytes);
  const PruneResult pr =
      pruneByPrediction(t.variants, t.measurements.eligible, bytes, ab, factor);
  int pruned = 0;
  for (size_t v = 0; v < t.variants.size(); ++v) {
    t.measurements.predictedUs[v].clear();
    for (uint64_t b : bytes)
      t.measurements.predictedUs[v].push_back(
          t.variants[v].predictedUs(ab.alphaUs, ab.bytesPerUs, double(b)));
    if (!t.measurements.eligible[v] || pr.keep[v]) continue;
    t.exclude(v, VariantStatus::Pruned, pr.reasons[v]);
    log.note("plan-tune:   pruned " + t.variants[v].variant.label + ": " + pr.reasons[v]);
    ++pruned;
  }
  log.note(prunedLine(t, factor, pruned));
}

}  // namespace

double resolvePruneFactor(const TuneSettings &settings, const Measurer &measurer) {
  if (settings.pruneFactor > 0) return settings.pruneFactor;
  return measurer.runner().exact() ? kNoPruning : 4.0;
}

AlphaBeta chooseAlphaBeta(const Topology &topology, const Measurer &measurer,
                          const std::vector<TableResult> &tables) {
  AlphaBeta fallback = alphaBetaFromTopology(topology);
  if (measurer.runner().exact()) return fallback;
  for (const TableResult &t : tables) {
    const CompiledVariant *probe = alphaProbe(t);
    if (!probe) continue;
    try {
      const std::vector<measure::SizePoint> points =
          measure::sizePoints(t.benchCase, {1, uint64_t(1) << 20});
      if (points.size() < 2) continue;
      const Measurement small = measurer.measure(probe->plan, t.benchCase, points[0], true);
      const Measurement large = measurer.measure(probe->plan, t.benchCase, points[1], true);
      AlphaBeta ab = fitAlphaBeta(probe->alphaRounds, probe->beta, small.medianUs,
                                  large.medianUs, double(points[1].bytes), fallback);
      ab.source += "; probe " + probe->variant.label + " (" + t.name() + ")";
      return ab;
    } catch (const std::exception &e) {
      fallback.source += std::string(" (measured fit failed: ") + e.what() + ")";
      return fallback;
    }
  }
  return fallback;
}

void pruneTables(std::vector<TableResult> &tables, const AlphaBeta &alphaBeta, double factor,
                 TuneLog &log) {
  for (TableResult &t : tables) pruneTable(t, alphaBeta, factor, log);
}

}  // namespace collplan::tune
