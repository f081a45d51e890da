// Measuring one plan at one size on a backend: correctness first, then repetitions until the
// median is stable (or a cap), through the tuner/bench library.
#pragma once

#include "runtime/backends/Backend.h"
#include "runtime/plan/Plan.h"
#include "runtime/topology/Topology.h"
#include "tuner/bench/BenchCase.h"

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
  /// Standard error of the median, from the samples' spread (0.93 x interquartile range / √n);
  /// 0 where the time is exact (sim) or a single sample. Selection treats medians closer than
  /// their errors allow as a tie.
  double medianErrorUs = 0;
  int reps = 0;
  int batches = 0;
  uint64_t wrong = 0;  ///< elements differing from the host reference (0 when unchecked)
  bool checked = false;
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
  double previousMedian = -1;
  bool stable = false;
  Measurement result;
};

class Measurer {
public:
  /// `topology` is what a simulated backend times plans on.
  Measurer(const Backend &backend, const Topology &topology, bool quick);

  /// Runs `plan` once with poisoned outputs at two awkward counts (1 element per block, and one
  /// that does not divide into the plan's units) and counts wrong elements. On a simulated
  /// backend the check runs on cpu-threads (up to 64 ranks; more are left unchecked, and said
  /// so), after one simulation that tells whether the topology supports the plan at all.
  CheckOutcome check(const Plan &plan, const bench::BenchCase &c) const;

  /// One batch of `plan` at `size` pooled into `state`: warm-up, then autoRepetitions(M) timed
  /// calls (a quarter with quick); the first batch also checks the result. Afterwards
  /// `state.stable` says whether more batches would be wasted: the pooled median moved by less
  /// than 2% since the previous batch, a wrong result, a simulated backend (one exact time), or
  /// the cap (4 batches, 2 with quick, 1 with `oneBatch`). `state.result` is always up to date.
  /// Throws what the backend throws (RuntimeError, SimError, ...).
  void runBatch(const Plan &plan, const bench::BenchCase &c, const bench::SizePoint &size,
                bool oneBatch, BatchState &state) const;

  /// runBatch until stable: one plan, one size.
  Measurement measure(const Plan &plan, const bench::BenchCase &c, const bench::SizePoint &size,
                      bool oneBatch) const;

  /// Untimed calls per measurement, timed calls per batch, batches at most.
  int warmup() const { return quick_ ? 2 : 3; }
  int batchReps(uint64_t bytes) const;
  int maxBatches() const { return quick_ ? 2 : 4; }

  const Backend &backend() const { return backend_; }

private:
  const Backend &backend_;
  const Topology &topology_;
  bool quick_;
};

}  // namespace collplan::tune
