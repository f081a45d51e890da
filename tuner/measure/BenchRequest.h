// runBenchRequest: plan-bench as a library call (sources, case, sizes, backend, baseline -> rows).
#pragma once

#include "runtime/plan/PlanJson.h"
#include "runtime/topology/Topology.h"
#include "tuner/measure/Baseline.h"
#include "tuner/measure/BenchReport.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace collplan::measure {

/// A bad request (conflicting sources, unknown names, out-of-range values): the message names
/// the option as plan-bench spells it ("--ranks must be between 1 and 4096, got 0").
struct BenchRequestError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Compiling a named algorithm, which needs the compiler (the caller links it, or has none).
struct BenchCompiler {
  std::string label;                ///< "ring (channels=2)": the plan source's label
  std::function<void()> check;      ///< validates the request before anything runs
  std::function<Plan(const BenchCase &c, const Topology *topology)> compile;
};

/// What to benchmark. Plans come from at most one of planFile, bundleFile and algorithm (""
/// or "default": the built-in plans; a name: `compiler` compiles it). Unset optionals default
/// to the plan's, the bundle's or the topology's values.
struct BenchRequest {
  std::string planFile, bundleFile;
  std::string algorithm;
  std::optional<BenchCompiler> compiler;  ///< required when `algorithm` names an algorithm
  std::string collective, dtype = "f32", op;
  std::optional<int> root, ranks;
  std::string backend = "cpu-threads";
  std::string topology;  ///< for the sim backend and for compiling
  bool allowMismatch = false;
  uint64_t minBytes = 8, maxBytes = uint64_t(64) << 20;
  int64_t stepFactor = 2;
  int warmup = 3, reps = 0;  ///< reps 0: autoRepetitions
  bool check = true;
  PlanLoadOptions load;
  /// "" (none) or a baseline's name (Baseline.h): "mpi" (MPI's own collective: under mpirun
  /// beside a cpu backend, in the same launch on the mpi backend) or "nccl" (NCCL's, on the
  /// devices of a backend that runs on devices, cuda).
  std::string baseline;
  BaselineOptions baselineOptions;
  /// Before each size: its index, the number of sizes, the size.
  std::function<void(size_t index, size_t sizes, const SizePoint &size)> progress;
  std::function<void(const std::string &)> note;      ///< warnings and phase lines
};

struct BenchOutcome {
  BenchInfo info;
  std::vector<BenchRow> rows;
  uint64_t wrongSizes = 0;  ///< sizes with a wrong result on some rank
  /// Whether this process reports the outcome (Backend::reportsLaunches: under mpirun, only
  /// rank 0 of the processes that all ran the request).
  bool reports = true;
};

/// Resolves the request (throws BenchRequestError, or PlanError / TopologyError for bad files),
/// runs every size on the backend's runner (RuntimeError / SimError when a run fails) and the
/// baseline it names beside the plans.
BenchOutcome runBenchRequest(const BenchRequest &request);

}  // namespace collplan::measure
