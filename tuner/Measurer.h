// The tuner's measurement of one plan at one size: correctness first, then batches until the
// median is stable (or a cap), on the measurement layer's runner of the backend.
#pragma once

#include "runtime/backends/Backend.h"
#include "runtime/plan/Plan.h"
#include "runtime/topology/Topology.h"
#include "tuner/measure/BenchCase.h"
#include "tuner/measure/Runner.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collplan::tune {

/// One variant at one size.
struct Measurement {
  bool done = false;
  double medianUs = 0;
  double p99Us = 0;
  /// Error of the median: the largest of its standard error within launches (0.93 x
  /// interquartile range / √n), the standard error of the batches' medians (each batch is a
  /// launch: launches differ more than the calls of one), and 2% of the median (the tolerance
  /// at which batches count as agreeing); 0 where the time is exact (sim) or a single sample.
  /// Selection treats medians closer than their errors allow as a tie.
  double medianErrorUs = 0;
  int reps = 0;
  int batches = 0;
  uint64_t wrong = 0;  ///< elements differing from the host reference (0 when unchecked)
};

/// The outcome of the correctness check a variant passes before it is timed.
struct CheckOutcome {
  bool ran = false;    ///< false: not checked (see `note`)
  uint64_t wrong = 0;  ///< wrong elements over the checked sizes
  std::string note;    ///< what was checked, or why not
  /// sim: why the simulator cannot run the plan on this topology (e.g. it needs duplicated
  /// writes the topology lacks); empty when it can.
  std::string unsupported;
};

/// The samples of one variant at one size while its batches run.
struct BatchState {
  std::vector<double> pooled;  ///< µs, the slowest rank per timed call, over all batches
  std::vector<double> batchMedians;  ///< µs, each batch's (each launch's) median
  double previousMedian = -1;
  bool stable = false;
  Measurement result;
};

/// Measures plans for the tuner through the runner of its backend (measure::makeRunner).
class Measurer {
public:
  /// `topology` is what a simulated backend times plans on.
  Measurer(const Backend &backend, const Topology &topology, bool quick);

  /// Runs `plan` once with poisoned outputs at two awkward counts (1 element per block, and one
  /// that does not divide into the plan's units) and counts wrong elements, on the runner's
  /// result checker (a simulated backend's is cpu-threads, up to 64 ranks; more are left
  /// unchecked, and said so), after asking the runner whether it can run the plan at all.
  CheckOutcome check(const Plan &plan, const measure::BenchCase &c) const;

  /// One batch of `plan` at `size` pooled into `state`: warm-up, then autoRepetitions(M) timed
  /// calls (a quarter with quick); the first batch also checks the result. Afterwards
  /// `state.stable` says whether more batches would be wasted: the pooled median moved by less
  /// than 2% since the previous batch, a wrong result, exact times (a simulation), or
  /// the cap (4 batches, 2 with quick, 1 with `oneBatch`). `state.result` is always up to date.
  /// Throws what the backend throws (RuntimeError, SimError, ...).
  void runBatch(const Plan &plan, const measure::BenchCase &c, const measure::SizePoint &size,
                bool oneBatch, BatchState &state) const;

  /// runBatch until stable: one plan, one size.
  Measurement measure(const Plan &plan, const measure::BenchCase &c, const measure::SizePoint &size,
                      bool oneBatch) const;

  /// Untimed calls per measurement, timed calls per batch, batches at most (0, 1 and 1 where
  /// the runner's times are exact).
  int warmup() const;
  int batchReps(uint64_t bytes) const;
  int maxBatches() const;
  /// The calls one measurement at `bytes` makes, for planning time (0 where times are exact).
  double expectedCalls(uint64_t bytes) const;

  const measure::Runner &runner() const { return *runner_; }
  const Backend &backend() const { return runner_->backend(); }

private:
  std::unique_ptr<measure::Runner> runner_;
  bool quick_;
};

}  // namespace collplan::tune
