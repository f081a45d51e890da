// Measurer: correctness check and stable-median timing of one plan, on the bench library.
#include "tuner/Measure.h"

#include "runtime/sim/SimError.h"
#include "tuner/bench/RunBench.h"
#include "tuner/bench/PlanSource.h"

#include <algorithm>
#include <cmath>

namespace collplan::tune {
namespace {

/// Ranks up to which the sim backend's plans are checked on cpu-threads.
constexpr int kMaxCheckedSimRanks = 64;
/// Batches stop when the pooled median moves less than this between two batches.
constexpr double kStableTolerance = 0.02;

/// The q-quantile of ascending, non-empty `sorted` (nearest rank).
double quantileOfSorted(const std::vector<double> &sorted, double q) {
  const size_t i = std::min(sorted.size() - 1, size_t(std::ceil(q * double(sorted.size())) - 1));
  return sorted[q <= 0 ? 0 : i];
}

bench::SizePoint pointWithCount(const bench::BenchCase &c, size_t count) {
  bench::SizePoint p;
  p.count = count;
  p.elements = uint64_t(count) * uint64_t(std::max(1, messageBlocks(c.kind, c.ranks)));
  p.bytes = p.elements * dtypeSize(c.dtype);
  return p;
}

}  // namespace

Measurer::Measurer(const Backend &backend, const Topology &topology, bool quick)
    : backend_(backend), topology_(topology), quick_(quick) {}

int Measurer::batchReps(uint64_t bytes) const {
  const int reps = bench::autoRepetitions(bytes);
  return quick_ ? std::max(3, reps / 4) : reps;
}

CheckOutcome Measurer::check(const Plan &plan, const bench::BenchCase &c) const {
  CheckOutcome out;
  const bool sim = backend_.simulated();
  if (sim) {
    try {
      (void)backend_.simulateUs(plan, topology_, pointWithCount(c, 1).bytes);
    } catch (const SimError &e) {
      out.unsupported = e.what();
      return out;
    }
  }
  if (c.kind == CollectiveKind::Barrier) {
    out.note = "barrier: no data to check";
    return out;
  }
  if (sim && c.ranks > kMaxCheckedSimRanks) {
    out.note = "not checked: " + std::to_string(c.ranks) + " ranks are too many to run as threads";
    return out;
  }
  const int blocks = std::max(1, messageBlocks(c.kind, c.ranks));
  const size_t unitsPerBlock = std::max<size_t>(1, plan.units / uint32_t(blocks));
  const std::vector<bench::SizePoint> sizes = {pointWithCount(c, 1),
                                               pointWithCount(c, 7 * unitsPerBlock + 3)};
  bench::LoopSettings settings;
  settings.warmup = 0;
  settings.reps = 1;
  settings.check = true;
  const bench::PlanSource source = bench::PlanSource::fromPlan(plan, plan.algorithm, c);
  // A simulated backend moves no data: the plan's results are checked on cpu-threads.
  const Backend &runner = sim ? cpuThreadsBackend() : backend_;
  const std::vector<bench::SizeResult> results =
      bench::runBench(runner, source, c, sizes, settings, {});
  out.ran = true;
  for (const bench::SizeResult &r : results) out.wrong += r.wrong;
  out.note = "checked on " + std::string(runner.name()) + " at counts 1 and " +
             std::to_string(sizes[1].count);
  return out;
}

void Measurer::runBatch(const Plan &plan, const bench::BenchCase &c,
                        const bench::SizePoint &size, bool oneBatch, BatchState &state) const {
  Measurement &m = state.result;
  const bench::PlanSource source = bench::PlanSource::fromPlan(plan, plan.algorithm, c);
  if (backend_.simulated()) {
    const std::vector<bench::SizeResult> r =
        bench::runBench(backend_, source, c, {size}, {}, {}, &topology_);
    m.done = true;
    m.medianUs = m.p99Us = r.at(0).timeUs;
    m.reps = m.batches = 1;
    state.stable = true;
    return;
  }
  bench::LoopSettings settings;
  settings.warmup = warmup();
  settings.reps = batchReps(size.bytes);
  settings.check = m.batches == 0;
  const std::vector<bench::SizeResult> r = bench::runBench(backend_, source, c, {size}, settings, {});
  const bench::SizeResult &result = r.at(0);
  if (m.batches == 0) {
    m.wrong = result.wrong;
    m.checked = true;
  }
  if (result.samplesUs.empty()) state.pooled.push_back(result.timeUs);
  state.pooled.insert(state.pooled.end(), result.samplesUs.begin(), result.samplesUs.end());
  ++m.batches;
  m.done = true;
  std::vector<double> sorted = state.pooled;  // not empty: one sample at least per batch
  std::sort(sorted.begin(), sorted.end());
  m.medianUs = sorted[sorted.size() / 2];
  m.p99Us = quantileOfSorted(sorted, 0.99);
  m.reps = int(sorted.size());
  // For roughly normal samples σ ≈ IQR / 1.349 and the median's standard error ≈ 1.2533 σ / √n.
  const double iqr = quantileOfSorted(sorted, 0.75) - quantileOfSorted(sorted, 0.25);
  m.medianErrorUs = m.reps > 1 ? 0.93 * iqr / std::sqrt(double(m.reps)) : 0.0;
  const bool settled = state.previousMedian > 0 &&
                       std::abs(m.medianUs - state.previousMedian) <= kStableTolerance * m.medianUs;
  state.stable = m.wrong > 0 || settled || m.batches >= (oneBatch ? 1 : maxBatches());
  state.previousMedian = m.medianUs;
}

Measurement Measurer::measure(const Plan &plan, const bench::BenchCase &c,
                              const bench::SizePoint &size, bool oneBatch) const {
  BatchState state;
  while (!state.stable) runBatch(plan, c, size, oneBatch, state);
  return state.result;
}

}  // namespace collplan::tune
