// fitTiers: T = α + s_k·M with one slope per memory tier (L2, LLC, DRAM), the breaks fitted too.
#pragma once

#include "tuner/calibrate/LeastSquares.h"

#include <cstddef>
#include <vector>

namespace collplan::calibrate {

/// Up to three regimes sharing one α: regime k holds points [breaks[k-1], breaks[k]) (the first
/// from 0, the last to the end), each with its own slope: a call whose data fits a nearer
/// cache level moves faster. Sizes in bytes, times in µs.
struct TierFit {
  double alphaUs = 0;
  std::vector<size_t> breaks;     ///< first point of each regime after the first, ascending
  std::vector<double> usPerByte;  ///< one slope per regime (breaks.size() + 1), all positive
  std::vector<double> relativeResiduals;  ///< (measured − fit) / measured, per point
  double medianAbsResidual = 0;
  double maxAbsResidual = 0;
  double bic = 0;  ///< n ln(SSE / n) + 2k ln n over the weighted residuals (what chose k)

  size_t regimes() const { return usPerByte.size(); }
  size_t regimeOf(size_t index) const;
  double predictUs(size_t index, double bytes) const {
    return alphaUs + bytes * usPerByte[regimeOf(index)];
  }
  double bandwidthGBps(size_t regime) const { return 1e-3 / usPerByte.at(regime); }
};

/// Fits 1 to `maxRegimes` (≤ 3) regimes, trying every break (at least two points per regime,
/// every slope positive), and keeps the regime count with the lowest Bayesian information
/// criterion, so a level is added only when the data demand it. Exact k-regime data are
/// recovered exactly. Throws std::invalid_argument like fitAlphaBeta, or when no split has
/// positive slopes.
TierFit fitTiers(const std::vector<double> &bytes, const std::vector<double> &timesUs,
                 FitWeighting weighting = FitWeighting::Relative, size_t maxRegimes = 3);

}  // namespace collplan::calibrate
