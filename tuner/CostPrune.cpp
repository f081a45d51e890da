// α-β constants from a topology or a fit, and pruning of variants by predicted time.
#include "tuner/CostPrune.h"

#include "runtime/topology/Queries.h"
#include "runtime/topology/Topology.h"
#include "tuner/measure/ByteSize.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace collplan::tune {

AlphaBeta alphaBetaFromTopology(const Topology &topology) {
  AlphaBeta ab;
  const int n = topology.numRanks();
  double latency = 0, minBandwidth = std::numeric_limits<double>::infinity();
  int pairs = 0;
  for (int r = 0; r < n && n > 1; ++r)
    for (int to : {(r + 1) % n, (r + n / 2) % n}) {
      if (to == r) continue;
      try {
        latency += routeLatencyUs(topology, r, to);
        minBandwidth = std::min(minBandwidth, routeBandwidthGBps(topology, r, to));
        ++pairs;
      } catch (const std::exception &) {
        // No route between these ranks: the simulator will say so for plans that need one.
      }
    }
  if (pairs > 0 && latency > 0) ab.alphaUs = latency / pairs;
  if (pairs > 0 && std::isfinite(minBandwidth) && minBandwidth > 0)
    ab.bytesPerUs = minBandwidth * 1e3;  // GB/s = 1e3 bytes per µs
  char text[160];
  std::snprintf(text, sizeof text, "topology %s: alpha = mean route latency %.3g us, bandwidth "
                "= narrowest route %.3g GB/s", topology.name.c_str(), ab.alphaUs,
                ab.bytesPerUs / 1e3);
  ab.source = text;
  return ab;
}

AlphaBeta fitAlphaBeta(double alphaRounds, double beta, double smallUs, double largeUs,
                       double largeBytes, const AlphaBeta &fallback) {
  AlphaBeta ab;
  const double rounds = std::max(1.0, alphaRounds);
  ab.alphaUs = smallUs / rounds;
  const double transfer = largeUs - rounds * ab.alphaUs;
  if (!(smallUs > 0) || !(transfer > 0) || !(beta > 0)) {
    AlphaBeta out = fallback;
    out.source += " (a measured fit was degenerate)";
    return out;
  }
  ab.bytesPerUs = beta * largeBytes / transfer;
  char text[200];
  std::snprintf(text, sizeof text, "measured: alpha %.3g us per round, bandwidth %.3g GB/s "
                "(fitted from one plan at two sizes)", ab.alphaUs, ab.bytesPerUs / 1e3);
  ab.source = text;
  return ab;
}

PruneResult pruneByPrediction(const std::vector<CompiledVariant> &variants,
                              const std::vector<bool> &candidate,
                              const std::vector<uint64_t> &sizes, const AlphaBeta &ab,
                              double factor) {
  PruneResult result;
  result.keep.assign(variants.size(), true);
  result.reasons.assign(variants.size(), "");
  if (variants.empty() || sizes.empty()) return result;
  std::vector<double> best(sizes.size(), std::numeric_limits<double>::infinity());
  std::vector<size_t> bestIndex(sizes.size(), 0);
  for (size_t v = 0; v < variants.size(); ++v)
    for (size_t s = 0; s < sizes.size() && candidate[v]; ++s) {
      const double t = variants[v].predictedUs(ab.alphaUs, ab.bytesPerUs, double(sizes[s]));
      if (t < best[s]) {
        best[s] = t;
        bestIndex[s] = v;
      }
    }
  for (size_t v = 0; v < variants.size(); ++v) {
    if (!candidate[v]) continue;
    double closest = std::numeric_limits<double>::infinity();
    size_t closestSize = 0;
    for (size_t s = 0; s < sizes.size(); ++s) {
      const double t = variants[v].predictedUs(ab.alphaUs, ab.bytesPerUs, double(sizes[s]));
      const double ratio = best[s] > 0 ? t / best[s] : 1.0;
      if (ratio < closest) {
        closest = ratio;
        closestSize = s;
      }
    }
    if (closest > factor) {
      result.keep[v] = false;
      char text[256];
      std::snprintf(text, sizeof text,
                    "predicted >= %.2fx the best at every size (closest: %s, where %s is best)",
                    closest, measure::formatBytes(sizes[closestSize]).c_str(),
                    variants[bestIndex[closestSize]].variant.label.c_str());
      result.reasons[v] = text;
    }
  }
  return result;
}

}  // namespace collplan::tune
