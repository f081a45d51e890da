// Choosing winners per size and merging sizes into buckets: pure functions of the measurements,
// so the same measurements always give the same bundle.
#pragma once

#include "tuner/Measurer.h"
#include "tuner/measure/BenchCase.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace collplan::tune {

/// Everything measured for one (collective, dtype, op): variants × sizes.
struct TableMeasurements {
  std::vector<measure::SizePoint> sizes;
  std::vector<std::vector<Measurement>> byVariant;  ///< [variant][size]
  std::vector<std::vector<double>> predictedUs;     ///< [variant][size]
  std::vector<bool> eligible;  ///< may win: measured, correct everywhere, ran without error
};

/// Per size: the fastest eligible variant by median and the second fastest; -1 where nothing
/// eligible was measured. Medians within two combined standard errors
/// (Measurement::medianErrorUs) are a tie, broken by the lower prediction, then the lower
/// median, then the lower index: on a noisy machine a variant the cost model expects to be
/// slower (more slices, more rounds) does not win on a lucky measurement. The previous size's
/// winner keeps a size where it ties with the best, so a table switches plans only where the
/// new one is faster beyond the measured spread.
struct SizeChoice {
  int winner = -1;
  int runnerUp = -1;
  /// How many combined standard errors of the medians the winner is faster than the runner-up
  /// (negative: it measured slower and won a tie); ±inf where times are exact and differ.
  double marginSigmas = 0;
};
std::vector<SizeChoice> chooseWinners(const TableMeasurements &m);

/// One bucket: [minBytes, maxBytes] (inclusive) served by `winner`. Neighbouring sizes with one
/// winner are merged; bucket edges lie at the geometric mean of the neighbouring measured sizes;
/// the first starts at 0 and the last ends at UINT64_MAX. `sizeIndex` is the measured size whose
/// times the bucket records (its largest); `runnerUp` is the other eligible variant closest to
/// the winner over the bucket's sizes (geometric mean of time ratios), or -1.
struct BucketChoice {
  uint64_t minBytes = 0;
  uint64_t maxBytes = 0;
  int winner = -1;
  int runnerUp = -1;
  size_t firstSize = 0, lastSize = 0;  ///< measured sizes inside, as indices into `sizes`
  size_t sizeIndex = 0;
  /// How sure the switch into this bucket is: standard errors by which its winner beat the
  /// previous bucket's at the first size (always beyond the tie threshold, 2); NaN for the
  /// first bucket or where the previous winner was not measured there; +inf where exact.
  double switchSigmas = std::numeric_limits<double>::quiet_NaN();
};
std::vector<BucketChoice> mergeBuckets(const TableMeasurements &m,
                                       const std::vector<SizeChoice> &choices);

/// The first byte count of the bucket that holds `upper` rather than `lower` (lower < upper):
/// ceil(sqrt(lower · upper)), within (lower, upper].
uint64_t bucketEdge(uint64_t lower, uint64_t upper);

}  // namespace collplan::tune
