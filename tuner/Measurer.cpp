// Measurer: correctness check and stable-median timing of one plan, on the backend's runner.
#include "tuner/Measurer.h"

#include <algorithm>
#include <cmath>

namespace collplan::tune {
namespace {

/// Batches stop when the pooled median moves less than this between two batches.
constexpr double kStableTolerance = 0.02;

/// The q-quantile of ascending, non-empty `sorted` (nearest rank).
double quantileOfSorted(const std::vector<double> &sorted, double q) {
  const size_t i = std::min(sorted.size() - 1, size_t(std::ceil(q * double(sorted.size())) - 1));
  return sorted[q <= 0 ? 0 : i];
}

/// The standard error of the median of `sorted` samples (for roughly normal samples σ ≈ IQR /
/// 1.349 and the median's standard error ≈ 1.2533 σ / √n); 0 for a single sample.
double withinError(const std::vector<double> &sorted) {
  if (sorted.size() < 2) return 0;
  const double iqr = quantileOfSorted(sorted, 0.75) - quantileOfSorted(sorted, 0.25);
  return 0.93 * iqr / std::sqrt(double(sorted.size()));
}

/// The standard error of the mean of the batches' medians: how much the time moves from one
/// launch to the next (where its threads or processes land, the load on the machine), which
/// the samples of one launch do not show. 0 below two batches.
double betweenError(const std::vector<double> &batchMedians) {
  const size_t n = batchMedians.size();
  if (n < 2) return 0;
  double mean = 0, squares = 0;
  for (double x : batchMedians) mean += x / double(n);
  for (double x : batchMedians) squares += (x - mean) * (x - mean);
  return std::sqrt(squares / double(n - 1)) / std::sqrt(double(n));
}

/// The median, p99 and the median's error of the pooled samples: the largest of the error
/// within launches, the error between launches, and kStableTolerance of the median (batches
/// whose medians agree that closely count as one measurement, so the median is not known
/// better).
void summarise(const BatchState &state, Measurement &m) {
  std::vector<double> sorted = state.pooled;  // not empty: one sample at least per batch
  std::sort(sorted.begin(), sorted.end());
  m.medianUs = sorted[sorted.size() / 2];
  m.p99Us = quantileOfSorted(sorted, 0.99);
  m.reps = int(sorted.size());
  const double floor = m.reps > 1 ? kStableTolerance * m.medianUs : 0.0;
  m.medianErrorUs = std::max({withinError(sorted), betweenError(state.batchMedians), floor});
}

}  // namespace

Measurer::Measurer(const Backend &backend, const Topology &topology, bool quick)
    : runner_(measure::makeRunner(backend, &topology)), quick_(quick) {}

int Measurer::warmup() const { return runner_->exact() ? 0 : quick_ ? 2 : 3; }

int Measurer::batchReps(uint64_t bytes) const {
  const int reps = measure::autoRepetitions(bytes);
  return quick_ ? std::max(3, reps / 4) : reps;
}

int Measurer::maxBatches() const { return runner_->exact() ? 1 : quick_ ? 2 : 4; }

double Measurer::expectedCalls(uint64_t bytes) const {
  return runner_->exact() ? 0 : warmup() + 1.5 * batchReps(bytes);
}

CheckOutcome Measurer::check(const Plan &plan, const measure::BenchCase &c) const {
  CheckOutcome out;
  if (std::optional<std::string> why = runner_->unsupported(plan, c)) {
    out.unsupported = *why;
    return out;
  }
  if (c.kind == CollectiveKind::Barrier) {
    out.note = "barrier: no data to check";
    return out;
  }
  const measure::Runner *checker = runner_->resultChecker(c.ranks, out.note);
  if (!checker) return out;
  const uint64_t blocks = std::max<uint64_t>(1, measure::callPoint(c, 1).elements);
  const size_t unitsPerBlock = std::max<size_t>(1, size_t(plan.units / blocks));
  const std::vector<measure::SizePoint> sizes = {measure::callPoint(c, 1),
                                                 measure::callPoint(c, 7 * unitsPerBlock + 3)};
  measure::LoopSettings settings;
  settings.warmup = 0;
  settings.reps = 1;
  settings.check = true;
  const measure::PlanSource source = measure::PlanSource::fromPlan(plan, plan.algorithm, c);
  out.ran = true;
  for (const measure::SizeResult &r : checker->run(source, c, sizes, settings)) out.wrong += r.wrong;
  out.note = "checked on " + std::string(checker->backend().name()) + " at counts 1 and " +
             std::to_string(sizes[1].count);
  return out;
}

void Measurer::runBatch(const Plan &plan, const measure::BenchCase &c,
                        const measure::SizePoint &size, bool oneBatch, BatchState &state) const {
  Measurement &m = state.result;
  measure::LoopSettings settings;
  settings.warmup = warmup();
  settings.reps = batchReps(size.bytes);
  settings.check = m.batches == 0;
  const measure::PlanSource source = measure::PlanSource::fromPlan(plan, plan.algorithm, c);
  const measure::SizeResult result = runner_->run(source, c, {size}, settings).at(0);
  if (m.batches == 0) m.wrong = result.wrong;
  if (result.samplesUs.empty()) state.pooled.push_back(result.timeUs);
  state.pooled.insert(state.pooled.end(), result.samplesUs.begin(), result.samplesUs.end());
  state.batchMedians.push_back(result.timeUs);  // the runner's median of this launch
  ++m.batches;
  m.done = true;
  summarise(state, m);
  const bool settled = state.previousMedian > 0 &&
                       std::abs(m.medianUs - state.previousMedian) <= kStableTolerance * m.medianUs;
  state.stable = m.wrong > 0 || settled || m.batches >= (oneBatch ? 1 : maxBatches());
  state.previousMedian = m.medianUs;
}

Measurement Measurer::measure(const Plan &plan, const measure::BenchCase &c,
                              const measure::SizePoint &size, bool oneBatch) const {
  BatchState state;
  while (!state.stable) runBatch(plan, c, size, oneBatch, state);
  return state.result;
}

}  // namespace collplan::tune
