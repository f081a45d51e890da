// Winner per size, runner-up per bucket and the merge of sizes into gap-free buckets.
#include "tuner/Selection.h"

#include <cmath>
#include <limits>

namespace collplan::tune {
namespace {

bool usable(const TableMeasurements &m, size_t v, size_t s) {
  const Measurement &x = m.byVariant[v][s];
  return m.eligible[v] && x.done && x.wrong == 0;
}

/// Medians closer than this many combined standard errors are a statistical tie.
constexpr double kTieStandardErrors = 2.0;

/// a is better than b at size s (both usable): the lower median, unless the two medians are
/// within their measurement errors (a tie); then the lower prediction (fewer rounds, fewer
/// bytes: the variant the cost model expects to be faster), then the lower median, then index.
/// How many combined standard errors of the medians a's is faster than b's at size s: +inf (or
/// -inf) where the times are exact and differ, 0 where they are equal.
double sigmasFaster(const TableMeasurements &m, size_t a, size_t b, size_t s) {
  const Measurement &x = m.byVariant[a][s], &y = m.byVariant[b][s];
  const double gap = y.medianUs - x.medianUs;
  const double error = std::hypot(x.medianErrorUs, y.medianErrorUs);
  if (error > 0) return gap / error;
  return gap == 0 ? 0 : gap > 0 ? std::numeric_limits<double>::infinity()
                                : -std::numeric_limits<double>::infinity();
}

bool tied(const TableMeasurements &m, size_t a, size_t b, size_t s) {
  return std::abs(sigmasFaster(m, a, b, s)) <= kTieStandardErrors;
}

bool better(const TableMeasurements &m, size_t a, size_t b, size_t s) {
  const Measurement &x = m.byVariant[a][s], &y = m.byVariant[b][s];
  if (!tied(m, a, b, s)) return x.medianUs < y.medianUs;
  const double pa = m.predictedUs[a][s], pb = m.predictedUs[b][s];
  if (pa != pb) return pa < pb;
  if (x.medianUs != y.medianUs) return x.medianUs < y.medianUs;
  return a < b;
}

}  // namespace

uint64_t bucketEdge(uint64_t lower, uint64_t upper) {
  const long double mean = std::sqrt(static_cast<long double>(lower) * upper);
  uint64_t edge = static_cast<uint64_t>(std::ceil(mean));
  if (edge <= lower) edge = lower + 1;
  if (edge > upper) edge = upper;
  return edge;
}

std::vector<SizeChoice> chooseWinners(const TableMeasurements &m) {
  std::vector<SizeChoice> out(m.sizes.size());
  int incumbent = -1;  // the winner of the last size that has one
  for (size_t s = 0; s < m.sizes.size(); ++s) {
    int first = -1, second = -1;
    for (size_t v = 0; v < m.byVariant.size(); ++v) {
      if (!usable(m, v, s)) continue;
      if (first < 0 || better(m, v, size_t(first), s)) {
        second = first;
        first = int(v);
      } else if (second < 0 || better(m, v, size_t(second), s)) {
        second = int(v);
      }
    }
    // The previous size's winner keeps this size unless the best here beats it beyond the
    // spread: a tie never switches the plan, so buckets do not alternate on noise.
    if (first >= 0 && incumbent >= 0 && incumbent != first && usable(m, size_t(incumbent), s) &&
        tied(m, size_t(first), size_t(incumbent), s)) {
      second = first;
      first = incumbent;
    }
    out[s] = {first, second};
    if (first >= 0) incumbent = first;
    if (first >= 0 && second >= 0)
      out[s].marginSigmas = sigmasFaster(m, size_t(first), size_t(second), s);
  }
  return out;
}

std::vector<BucketChoice> mergeBuckets(const TableMeasurements &m,
                                       const std::vector<SizeChoice> &choices) {
  // Sizes that have a winner, in order.
  std::vector<size_t> won;
  for (size_t s = 0; s < choices.size(); ++s)
    if (choices[s].winner >= 0) won.push_back(s);
  std::vector<BucketChoice> buckets;
  for (size_t k = 0; k < won.size(); ++k) {
    const size_t s = won[k];
    if (!buckets.empty() && buckets.back().winner == choices[s].winner) {
      buckets.back().lastSize = s;
      continue;
    }
    BucketChoice b;
    b.winner = choices[s].winner;
    if (!buckets.empty() && usable(m, size_t(buckets.back().winner), s))
      b.switchSigmas = sigmasFaster(m, size_t(b.winner), size_t(buckets.back().winner), s);
    b.firstSize = b.lastSize = s;
    b.minBytes = k == 0 ? 0 : bucketEdge(m.sizes[won[k - 1]].bytes, m.sizes[s].bytes);
    if (!buckets.empty()) buckets.back().maxBytes = b.minBytes - 1;
    buckets.push_back(b);
  }
  if (!buckets.empty()) buckets.back().maxBytes = std::numeric_limits<uint64_t>::max();

  for (BucketChoice &b : buckets) {
    b.sizeIndex = b.lastSize;
    // The runner-up: the closest other variant over the bucket's sizes (it must have been
    // measured, correctly, at every one of them).
    double bestScore = std::numeric_limits<double>::infinity();
    for (size_t v = 0; v < m.byVariant.size(); ++v) {
      if (int(v) == b.winner) continue;
      double score = 0;
      bool complete = true;
      for (size_t s = b.firstSize; s <= b.lastSize && complete; ++s) {
        if (choices[s].winner < 0) continue;
        if (!usable(m, v, s)) {
          complete = false;
          break;
        }
        const double w = m.byVariant[size_t(b.winner)][s].medianUs;
        const double t = m.byVariant[v][s].medianUs;
        score += std::log(std::max(t, 1e-9) / std::max(w, 1e-9));
      }
      if (complete && score < bestScore) {
        bestScore = score;
        b.runnerUp = int(v);
      }
    }
  }
  return buckets;
}

}  // namespace collplan::tune
