// fitTiers: shared-α piecewise-linear least squares over every break placement, chosen by BIC.
#include "tuner/calibrate/TierFit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace collplan::calibrate {
namespace {

/// Weighted least squares of t = α + s_r·x for fixed regimes (closed form: each slope given α
/// is a one-variable fit, substituted into α's normal equation). False when degenerate.
bool solve(const std::vector<double> &x, const std::vector<double> &t, const std::vector<double> &w,
           const std::vector<size_t> &bounds, TierFit &fit, double &sse) {
  const size_t k = bounds.size() - 1;
  std::vector<double> sx(k, 0), sxx(k, 0), sxt(k, 0);
  double sw = 0, st = 0;
  for (size_t r = 0; r < k; ++r)
    for (size_t i = bounds[r]; i < bounds[r + 1]; ++i) {
      sw += w[i];
      st += w[i] * t[i];
      sx[r] += w[i] * x[i];
      sxx[r] += w[i] * x[i] * x[i];
      sxt[r] += w[i] * x[i] * t[i];
    }
  double a = sw, b = st;
  for (size_t r = 0; r < k; ++r) {
    if (!(sxx[r] > 0)) return false;
    a -= sx[r] * sx[r] / sxx[r];
    b -= sx[r] * sxt[r] / sxx[r];
  }
  if (!(std::fabs(a) > 1e-12 * sw)) return false;
  fit.alphaUs = b / a;
  fit.usPerByte.assign(k, 0);
  for (size_t r = 0; r < k; ++r) {
    fit.usPerByte[r] = (sxt[r] - fit.alphaUs * sx[r]) / sxx[r];
    if (!(fit.usPerByte[r] > 0)) return false;
  }
  fit.breaks.assign(bounds.begin() + 1, bounds.end() - 1);
  sse = 0;
  for (size_t r = 0; r < k; ++r)
    for (size_t i = bounds[r]; i < bounds[r + 1]; ++i) {
      double e = t[i] - fit.alphaUs - fit.usPerByte[r] * x[i];
      sse += w[i] * e * e;
    }
  return true;
}

}  // namespace

size_t TierFit::regimeOf(size_t index) const {
  return size_t(std::upper_bound(breaks.begin(), breaks.end(), index) - breaks.begin());
}

TierFit fitTiers(const std::vector<double> &bytes, const std::vector<double> &timesUs,
                 FitWeighting weighting, size_t maxRegimes) {
  fitAlphaBeta(bytes, timesUs, weighting);  // the same input checks
  const size_t n = bytes.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bytes[a] < bytes[b]; });
  std::vector<double> x(n), t(n), w(n, 1.0);
  for (size_t i = 0; i < n; ++i) {
    x[i] = bytes[order[i]];
    t[i] = timesUs[order[i]];
    if (weighting == FitWeighting::Relative) w[i] = 1.0 / (t[i] * t[i]);
  }
  double wsum = 0;  // normalised weights keep the BIC independent of the time unit
  for (double v : w) wsum += v;
  for (double &v : w) v *= double(n) / wsum;

  TierFit best;
  bool found = false;
  auto consider = [&](const std::vector<size_t> &bounds) {
    TierFit fit;
    double sse = 0;
    if (!solve(x, t, w, bounds, fit, sse)) return;
    size_t k = bounds.size() - 1;
    // Below relative residuals of ~1e-9 the differences are rounding: exact fits tie, and the
    // penalty then keeps the fewest regimes.
    fit.bic = double(n) * std::log(std::max(sse, 1e-18 * double(n)) / double(n)) +
              2.0 * double(k) * std::log(double(n));
    if (!found || fit.bic < best.bic) best = fit, found = true;
  };
  maxRegimes = std::min<size_t>(std::max<size_t>(maxRegimes, 1), 3);
  consider({0, n});
  for (size_t b1 = 2; maxRegimes >= 2 && b1 + 2 <= n; ++b1) {
    consider({0, b1, n});
    for (size_t b2 = b1 + 2; maxRegimes >= 3 && b2 + 2 <= n; ++b2) consider({0, b1, b2, n});
  }
  if (!found)
    throw std::invalid_argument("fit: no split of the sizes gives positive slopes (times do not "
                                "grow with the size)");
  // Residuals in the caller's point order.
  best.relativeResiduals.assign(n, 0);
  std::vector<double> absResiduals(n);
  for (size_t i = 0; i < n; ++i) {
    double r = (t[i] - best.predictUs(i, x[i])) / t[i];
    best.relativeResiduals[order[i]] = r;
    absResiduals[i] = std::fabs(r);
  }
  best.medianAbsResidual = median(absResiduals);
  best.maxAbsResidual = *std::max_element(absResiduals.begin(), absResiduals.end());
  // Breaks index the sorted points; callers pass sorted sizes (calibrate sorts them).
  return best;
}

}  // namespace collplan::calibrate
