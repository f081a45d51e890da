// Baselines: a library's own collectives timed beside the plans (plan-bench --baseline NAME), a
// registry of their own looked up by name.
#pragma once

#include "tuner/measure/Runner.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace collplan::measure {

/// Where the programs of a baseline that runs apart from the plans are.
struct BaselineOptions {
  std::string mpirun = "mpirun";
  /// MPI's collectives beside a backend that launches its ranks itself: this helper program
  /// (bench/runtime/MpiCollectiveSweep.c, built as collplan-mpi-baseline) under `mpirun`.
  std::string mpiHelper;
};

/// A baseline's time per size (µs) and what the report calls it.
struct BaselineTimes {
  std::vector<double> us;
  std::string label;  ///< "MPI_Allreduce (mpirun -np 4)"
};

/// Lines that say what runs ("running MPI_Allreduce under mpirun..."); may be empty.
using NoteFn = std::function<void(const std::string &line)>;

/// One baseline. Its messages start with "--baseline NAME", the flag that asked for it.
class Baseline {
public:
  virtual ~Baseline() = default;
  /// What --baseline takes, and the table's column: "mpi" (mpi(us)), "nccl".
  virtual std::string_view name() const = 0;
  /// Throws std::invalid_argument when it cannot run beside the plans of `backend` at all
  /// (another kind of backend than its library serves). Needs no case and measures nothing.
  virtual void checkBackend(const Backend &backend) const = 0;
  /// Throws std::invalid_argument when it cannot time `c` there (a type its library lacks, a
  /// missing helper, a placement its library refuses): before anything is measured.
  virtual void checkCase(const Runner &runner, const BenchCase &c,
                         const BaselineOptions &options) const = 0;
  /// Every size of `c` timed as `runner` times the plans (checkCase passed). Throws
  /// std::runtime_error naming the baseline when its library fails.
  virtual BaselineTimes run(const Runner &runner, const BenchCase &c,
                            const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                            const BaselineOptions &options, const NoteFn &note) const = 0;
};

/// Every baseline, in the order --help lists them.
const std::vector<const Baseline *> &baselines();
/// The baseline named `name`, or nullptr.
const Baseline *findBaseline(std::string_view name);
/// "mpi, nccl".
std::string baselineNames();

/// The registry's entries (defined with their baselines).
/// MPI's collectives: in the launch of a backend whose ranks are MPI's processes (its own
/// collectives), else under an mpirun of their own beside a backend of host ranks.
const Baseline &mpiBaseline();
/// NCCL's collectives: the own collectives of a backend whose ranks run on devices (cuda).
const Baseline &ncclBaseline();

/// Each size's median time (µs).
std::vector<double> medians(const std::vector<SizeResult> &results);

/// Runs `body`; a std::invalid_argument or std::runtime_error it throws comes back with its
/// message prefixed by "--baseline NAME: ".
void asBaselineError(const Baseline &baseline, const std::function<void()> &body);

}  // namespace collplan::measure
