// Phase 8, confirm: the tuned bundle timed again the way plan-bench --bundle times it, so the
// report shows what a job will see beside what the tune measured.
#pragma once

#include "tuner/Measurer.h"
#include "tuner/Progress.h"
#include "tuner/TuneResult.h"

namespace collplan::tune {

/// A bucket whose fastest confirming launch is slower than the tune's figure by more than this
/// factor is said loudly.
inline constexpr double kConfirmationAlertRatio = 1.5;
/// Separate launches per confirmation: one launch's time varies by ±50% on a loaded machine
/// (where its processes land), so one launch alone would raise false alerts.
inline constexpr int kConfirmationLaunches = 3;

/// For every table of `result.bundle`, each bucket's plan at the bucket's measured size, loaded
/// from the bundle and run as plan-bench --bundle runs it (fresh call buffers, its warm-up and
/// repetitions, the result checked), each bucket in kConfirmationLaunches launches of its own
/// (call buffers sized for that message, as the tune measures and as a job runs: a launch that
/// also holds a bucket of a larger size measured small messages up to 5x slower), into
/// TableResult::confirmed. Says which buckets ran more than kConfirmationAlertRatio times slower
/// than tuned in every launch (load on the machine changed, or the tune's warm buffers
/// flattered a plan). Nothing where the runner's times are exact (a simulation gives the same
/// time again), without a bundle, or after Ctrl-C. A table whose run fails keeps zeros and the
/// failure is said.
void confirmBundle(TuneResult &result, const Measurer &measurer, TuneLog &log);

}  // namespace collplan::tune
