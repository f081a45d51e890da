// Least-squares fit of the α-β model T(M) = α + M / B to measured times over message sizes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace collplan::calibrate {

/// How the points of a fit are weighted.
enum class FitWeighting {
  /// Minimise Σ (T_i − fit_i)²: large messages dominate (their times are largest).
  Absolute,
  /// Minimise Σ ((T_i − fit_i) / T_i)²: every size counts as much as any other, which is what a
  /// ratio predicted / measured over 8 B – 64 MiB needs.
  Relative,
};

/// The fitted line and how well it fits. Sizes in bytes, times in µs.
struct AlphaBetaFit {
  double alphaUs = 0;        ///< intercept: time of an empty message
  double usPerByte = 0;      ///< slope: 1 / bandwidth
  double bandwidthGBps = 0;  ///< 1e-3 / usPerByte (GB/s = 1e3 bytes/µs); 0 when the slope is <= 0
  double r2 = 0;             ///< 1 − SS_res / SS_tot on the times (weighted as fitted)
  /// Per point: (measured − fit) / measured.
  std::vector<double> relativeResiduals;
  double medianAbsResidual = 0;  ///< median |relative residual|
  double maxAbsResidual = 0;     ///< largest |relative residual|
  size_t worstPoint = 0;         ///< index of that point

  /// α + bytes · usPerByte.
  double predictUs(double bytes) const { return alphaUs + bytes * usPerByte; }
};

/// Fits T = α + s·M by weighted linear least squares (closed form, 2x2 normal equations). Exact
/// data are recovered exactly (to rounding). Throws std::invalid_argument when there are fewer
/// than two distinct sizes, the vectors differ in length, or a value is not finite (or a time is
/// not positive under Relative weighting).
AlphaBetaFit fitAlphaBeta(const std::vector<double> &bytes, const std::vector<double> &timesUs,
                          FitWeighting weighting = FitWeighting::Relative);

/// Two regimes sharing one α: messages whose footprint fits a cache move at one bandwidth, larger
/// ones at another (memory). Points [0, breakIndex) are in cache, [breakIndex, n) are not.
struct TwoRegimeFit {
  AlphaBetaFit cache;       ///< the line fitted over the in-cache points (α and its slope)
  double memUsPerByte = 0;  ///< slope of the out-of-cache points (α fixed); 0 without a break
  double memBandwidthGBps = 0;
  size_t breakIndex = 0;  ///< first out-of-cache point; n when no break fits better than one line
  std::vector<double> relativeResiduals;  ///< over all points, as in AlphaBetaFit
  double medianAbsResidual = 0;
  double maxAbsResidual = 0;
  size_t worstPoint = 0;
  double r2 = 0;
  size_t points = 0;
  bool hasBreak() const { return breakIndex < points; }
  double predictUs(size_t index, double bytes) const {
    return cache.alphaUs + bytes * (index < breakIndex ? cache.usPerByte : memUsPerByte);
  }
};

/// Tries every break (at least two points before it, both slopes positive) and keeps the one
/// with the smallest weighted squared error; no break when one line does as well. Exact two-regime data are
/// recovered exactly. Throws like fitAlphaBeta.
TwoRegimeFit fitTwoRegimes(const std::vector<double> &bytes, const std::vector<double> &timesUs,
                           FitWeighting weighting = FitWeighting::Relative);

/// The median of `values` (the mean of the middle two for an even count; 0 when empty).
double median(std::vector<double> values);

}  // namespace collplan::calibrate
