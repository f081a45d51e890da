// confirmBundle: each bucket of the tuned bundle run again as plan-bench --bundle runs it.
#include "tuner/phases/Confirm.h"

#include "tuner/measure/ByteSize.h"
#include "tuner/measure/PlanSource.h"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace collplan::tune {
namespace {

/// The bundle's plan for each bucket of `t` at its measured size, timed in launches of its own;
/// one entry per bucket.
std::vector<Confirmation> confirmTable(const TableResult &t,
                                       const std::shared_ptr<const Bundle> &bundle,
                                       const Measurer &measurer) {
  const measure::PlanSource source =
      measure::PlanSource::fromBundle(bundle, "the tuned bundle", t.benchCase);
  std::vector<measure::SizePoint> sizes;
  for (const BucketChoice &b : t.buckets) sizes.push_back(t.measurements.sizes[b.sizeIndex]);
  const measure::LoopSettings asPlanBench;  // plan-bench's defaults: 3 warm-up, auto reps, check
  std::vector<std::vector<double>> launches(sizes.size());  // [bucket][launch] µs
  for (int k = 0; k < kConfirmationLaunches; ++k)
    for (size_t b = 0; b < sizes.size(); ++b) {
      const measure::SizeResult r =
          measurer.runner().run(source, t.benchCase, {sizes[b]}, asPlanBench).at(0);
      launches[b].push_back(r.wrong == 0 ? r.timeUs : 0);
    }
  std::vector<Confirmation> out;
  for (std::vector<double> &us : launches) {
    std::sort(us.begin(), us.end());
    if (us.front() <= 0) out.emplace_back();  // a wrong result in some launch
    else out.push_back({us[us.size() / 2], us.front(), us.back()});
  }
  return out;
}

/// "plan-tune: allreduce f32 sum at 2 MiB: the bundle ran at 489 us, tuned at 62 us (7.9x)".
void sayIfSlower(const TableResult &t, TuneLog &log) {
  for (size_t k = 0; k < t.buckets.size(); ++k) {
    const BucketChoice &b = t.buckets[k];
    const double tuned = t.measurements.byVariant[size_t(b.winner)][b.sizeIndex].medianUs;
    const double ran = t.confirmed[k].minUs;
    if (!t.confirmed[k].ran() || tuned <= 0 || ran <= kConfirmationAlertRatio * tuned) continue;
    char line[256];
    std::snprintf(line, sizeof line,
                  "plan-tune: %s at %s: the bundle ran at %.1f us at best as plan-bench runs it, "
                  "tuned at %.1f us (%.1fx): the machine's load changed while tuning, or warm "
                  "buffers flattered the plan",
                  t.name().c_str(),
                  measure::formatBytes(t.measurements.sizes[b.sizeIndex].bytes).c_str(), ran,
                  tuned, ran / tuned);
    log.alert(line);
  }
}

}  // namespace

void confirmBundle(TuneResult &result, const Measurer &measurer, TuneLog &log) {
  if (!result.bundle || result.interrupted || measurer.runner().exact()) return;
  log.note("plan-tune: confirming each bucket as plan-bench --bundle runs it...");
  const auto bundle = std::make_shared<const Bundle>(*result.bundle);
  for (TableResult &t : result.tables) {
    if (t.buckets.empty()) continue;
    try {
      t.confirmed = confirmTable(t, bundle, measurer);
    } catch (const std::exception &e) {
      log.alert("plan-tune: " + t.name() + ": the bundle failed to run: " + e.what());
      t.confirmed.assign(t.buckets.size(), Confirmation{});
      continue;
    }
    sayIfSlower(t, log);
  }
}

}  // namespace collplan::tune
