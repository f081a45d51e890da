// fitAlphaBeta: weighted linear least squares of T = α + s·M, with fit-quality figures.
#include "tuner/calibrate/LeastSquares.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace collplan::calibrate {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

AlphaBetaFit fitAlphaBeta(const std::vector<double> &bytes, const std::vector<double> &timesUs,
                          FitWeighting weighting) {
  if (bytes.size() != timesUs.size())
    throw std::invalid_argument("fit: " + std::to_string(bytes.size()) + " sizes but " +
                                std::to_string(timesUs.size()) + " times");
  const size_t n = bytes.size();
  std::vector<double> w(n, 1.0);
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(bytes[i]) || !std::isfinite(timesUs[i]) || bytes[i] < 0)
      throw std::invalid_argument("fit: point " + std::to_string(i) +
                                  " is not a finite size and time");
    if (weighting == FitWeighting::Relative) {
      if (timesUs[i] <= 0)
        throw std::invalid_argument("fit: point " + std::to_string(i) +
                                    " has a time <= 0, which a relative fit cannot weigh");
      w[i] = 1.0 / (timesUs[i] * timesUs[i]);
    }
  }
  // Normal equations of min Σ w (t − α − s·m)², centred on the weighted means for accuracy
  // (sizes span 8 B – 64 MiB, so raw sums of m² lose digits).
  double sw = 0, mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    sw += w[i];
    mx += w[i] * bytes[i];
    my += w[i] * timesUs[i];
  }
  if (n < 2) throw std::invalid_argument("fit: needs at least two sizes");
  if (!(sw > 0) || !std::isfinite(sw))
    throw std::invalid_argument("fit: the times cannot be weighed (their weights underflow or "
                                "overflow): times must lie between 1e-12 and 1e12 us");
  mx /= sw;
  my /= sw;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    double dx = bytes[i] - mx, dy = timesUs[i] - my;
    sxx += w[i] * dx * dx;
    sxy += w[i] * dx * dy;
    syy += w[i] * dy * dy;
  }
  if (!(sxx > 0)) throw std::invalid_argument("fit: needs at least two distinct sizes");

  AlphaBetaFit fit;
  fit.usPerByte = sxy / sxx;
  fit.alphaUs = my - fit.usPerByte * mx;
  fit.bandwidthGBps = fit.usPerByte > 0 ? 1e-3 / fit.usPerByte : 0;
  double ssRes = 0;
  fit.relativeResiduals.resize(n);
  for (size_t i = 0; i < n; ++i) {
    double r = timesUs[i] - fit.predictUs(bytes[i]);
    ssRes += w[i] * r * r;
    fit.relativeResiduals[i] = timesUs[i] > 0 ? r / timesUs[i] : 0;
    double a = std::fabs(fit.relativeResiduals[i]);
    if (a > fit.maxAbsResidual || i == 0) {
      fit.maxAbsResidual = a;
      fit.worstPoint = i;
    }
  }
  fit.r2 = syy > 0 ? 1.0 - ssRes / syy : 1.0;
  std::vector<double> abs(n);
  for (size_t i = 0; i < n; ++i) abs[i] = std::fabs(fit.relativeResiduals[i]);
  fit.medianAbsResidual = median(abs);
  return fit;
}

TwoRegimeFit fitTwoRegimes(const std::vector<double> &bytes, const std::vector<double> &timesUs,
                           FitWeighting weighting) {
  AlphaBetaFit whole = fitAlphaBeta(bytes, timesUs, weighting);  // validates the input
  const size_t n = bytes.size();
  auto weight = [&](size_t i) {
    return weighting == FitWeighting::Relative ? 1.0 / (timesUs[i] * timesUs[i]) : 1.0;
  };
  auto sse = [&](const TwoRegimeFit &f) {
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
      double r = timesUs[i] - f.predictUs(i, bytes[i]);
      total += weight(i) * r * r;
    }
    return total;
  };
  double my = 0, sw = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) sw += weight(i), my += weight(i) * timesUs[i];
  my /= sw;
  for (size_t i = 0; i < n; ++i) syy += weight(i) * (timesUs[i] - my) * (timesUs[i] - my);
  // A break must beat one line by more than rounding, so exact single-line data get none.
  const double tolerance = 1e-9 * syy;
  TwoRegimeFit best;
  best.points = n;
  best.cache = whole;
  best.breakIndex = n;
  best.memUsPerByte = whole.usPerByte;
  double bestError = sse(best);
  for (size_t k = 2; k + 1 <= n; ++k) {
    std::vector<double> x(bytes.begin(), bytes.begin() + long(k));
    std::vector<double> y(timesUs.begin(), timesUs.begin() + long(k));
    TwoRegimeFit f;
    f.points = n;
    try {
      f.cache = fitAlphaBeta(x, y, weighting);
    } catch (const std::invalid_argument &) {
      continue;  // fewer than two distinct sizes before the break
    }
    double num = 0, den = 0;  // slope through the fixed intercept α
    for (size_t i = k; i < n; ++i) {
      num += weight(i) * bytes[i] * (timesUs[i] - f.cache.alphaUs);
      den += weight(i) * bytes[i] * bytes[i];
    }
    if (!(den > 0)) continue;
    f.memUsPerByte = num / den;
    // Both regimes must be lines that grow with the size; noise can fit a break that is not.
    if (!(f.cache.usPerByte > 0) || !(f.memUsPerByte > 0)) continue;
    f.breakIndex = k;
    double error = sse(f);
    if (error < bestError - tolerance) {
      bestError = error;
      best = f;
    }
  }
  if (!best.hasBreak()) best.memUsPerByte = best.cache.usPerByte;
  best.memBandwidthGBps = best.memUsPerByte > 0 ? 1e-3 / best.memUsPerByte : 0;
  best.r2 = syy > 0 ? 1.0 - bestError / syy : 1.0;
  best.relativeResiduals.resize(n);
  std::vector<double> abs(n);
  for (size_t i = 0; i < n; ++i) {
    double r = timesUs[i] - best.predictUs(i, bytes[i]);
    best.relativeResiduals[i] = timesUs[i] > 0 ? r / timesUs[i] : 0;
    abs[i] = std::fabs(best.relativeResiduals[i]);
    if (i == 0 || abs[i] > best.maxAbsResidual) best.maxAbsResidual = abs[i], best.worstPoint = i;
  }
  best.medianAbsResidual = median(abs);
  return best;
}

}  // namespace collplan::calibrate
