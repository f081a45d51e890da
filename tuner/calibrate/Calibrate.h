// calibrate: measure transfers, copies and reductions on a cpu backend, fit α-β, write a topology.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/topology/Topology.h"
#include "tuner/calibrate/LeastSquares.h"
#include "tuner/calibrate/TierFit.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collplan::calibrate {

/// What to measure and how.
struct CalibrationSettings {
  int ranks = 2;                       ///< ranks of the calibrated topology (>= 2)
  std::string backend = "cpu-threads"; ///< cpu-threads or cpu-shm
  std::vector<uint64_t> sizes;         ///< message sizes M in bytes (at least two distinct)
  int warmup = 3;
  int reps = 0;  ///< timed calls per size; 0: autoRepetitions (many for small sizes)
  FitWeighting weighting = FitWeighting::Relative;
  std::string name = "local-calibrated";  ///< the topology's name
  /// Cores the ranks run on (hwloc); 0: one per rank. With fewer cores than ranks, concurrent
  /// pulls share the cores (Device::pullGBps).
  int cores = 0;
};

/// Throws std::invalid_argument with a message naming the bad setting (ranks < 2 or > 1024, an
/// unknown backend, fewer than two sizes, a negative warm-up or repetition count).
void checkSettings(const CalibrationSettings &settings);

/// Times (µs, median of the slowest rank) of `plan` at each size on a backend. The real one
/// runs the benchmark loop; tests inject exact synthetic times.
using MeasureFn =
    std::function<std::vector<double>(const Plan &plan, const std::vector<uint64_t> &sizes)>;
/// The measurement layer's runner of settings.backend (correctness check off: the
/// calibration plans compute no collective). `progress` gets a line per size (may be empty).
MeasureFn backendMeasure(const CalibrationSettings &settings,
                         std::function<void(const std::string &)> progress = {});

/// One calibration plan's measurements and their α-β fit (sizes = message bytes M).
struct Measurement {
  std::string what;  ///< "point-to-point", "copy", "reduce"
  Plan plan;
  std::vector<uint64_t> bytes;
  std::vector<double> timesUs;
  AlphaBetaFit fit;          ///< one line over every size
  TwoRegimeFit regimes;      ///< in cache / out of cache, sharing α
  TierFit tiers;             ///< up to three memory tiers sharing α (what the model uses)
  std::vector<double> simulatedUs;  ///< the calibrated topology's prediction of each point
};

/// The model figures a calibrated topology carries (whole-machine values).
struct ModelFigures {
  double latencyUs = 0;
  double memGBps = 0;
  double reduceGBps = 0;
  double cacheBytes = 0;  ///< footprint (2 × M × ranks) below which the cache bandwidth applies
  double cacheGBps = 0;
  double nearCacheBytes = 0;  ///< footprint below which the near cache's bandwidth applies
  double nearCacheGBps = 0;
  double opOverheadUs = 0;  ///< Device::opOverheadUs
  /// Topology::intraDeviceBandwidthGBps with pull transfers; 0: push transfers capped only by
  /// memory (the intra-device cap then set so that it never binds).
  double pullGBps = 0;
  /// Device::pullGBps (whole machine): all pulls at once share the cores' pull rate. 0 (no
  /// shared limit) unless the ranks outnumber the cores.
  double devicePullGBps = 0;
  /// Topology::intraDeviceCleanPullBytes (whole machine): below this footprint pulls of
  /// unmodified inputs are local reads; 0: never.
  double cleanPullBytes = 0;
  /// Topology::intraDevicePullCacheBytes (whole machine): the footprint beyond which pulls run
  /// at the far tier below (the ring shift's slowest last tier); 0: one pull tier.
  double pullCacheBytes = 0;
  double pullMemoryGBps = 0;        ///< Topology::intraDevicePullMemoryGBps
  double devicePullMemoryGBps = 0;  ///< Device::pullMemoryGBps (whole machine), as devicePullGBps
};

/// The measured figures, the model parameters derived from them, and the topology.
struct Calibration {
  CalibrationSettings settings;
  Measurement pointToPoint;  ///< ringShiftPlan: α and the pull bandwidth of transfers
  Measurement copy;          ///< localCopyPlan: the memory tiers (cache levels and DRAM)
  Measurement copyChain;     ///< localCopyChainPlan: the per-op overhead
  Measurement reduce;        ///< localReducePlan: reduction throughput
  /// Physical figures, aggregated over all ranks at once: memcpy traffic (reads + writes) and
  /// bytes combined per second by 2-operand reductions.
  double copyTrafficGBps = 0;
  double reduceCombineGBps = 0;
  /// Model parameters written to the topology (see calibratedTopology).
  ModelFigures model;
  std::vector<std::string> notes;  ///< clamps and caveats met while deriving the parameters
  Topology topology;
  /// Median |simulated − measured| / measured over the calibration plans' points.
  double selfCheckMedianError = 0;

  /// Every calibration measurement, in report order.
  std::vector<Measurement *> measurements() { return {&pointToPoint, &copy, &copyChain, &reduce}; }
};

/// Measures the three calibration plans with `measure`, fits them and derives the topology.
/// `log` gets progress lines (may be empty). Throws std::invalid_argument for bad settings and
/// std::runtime_error when the measurements cannot be fitted (e.g. times that do not grow).
Calibration calibrateMachine(const CalibrationSettings &settings, const MeasureFn &measure,
                             const std::function<void(const std::string &)> &log = {});

/// Fits `m`'s points (one line, two regimes, tiers). Throws std::runtime_error naming `m.what`
/// when they cannot be fitted or do not grow with the size.
void fitMeasurement(Measurement &m, FitWeighting weighting);

/// Simulates every calibration plan on `c.topology` at its sizes (Measurement::simulatedUs) and
/// sets the median error.
void selfCheck(Calibration &c);

/// Derives the model figures and the topology of `c` from its four measurements (point to point,
/// copy, copy chain, reduce; see Calibrate.cpp), solving each with the simulator. Called by
/// calibrateMachine; tests call it on synthetic measurements.
void deriveModel(Calibration &c, const std::function<void(const std::string &)> &log = {});


/// Ops per rank of the copy chain that measures the per-op overhead.
inline constexpr uint32_t kCopyChainOps = 8;

/// Cores of this machine (hwloc, as localMachine counts them: physical cores, else PUs).
int localCoreCount();

/// The calibrated topology: this machine's NUMA structure (localMachine, hwloc) with `ranks`
/// ranks, every device's memory, cache and reduction figures replaced by the model figures
/// (split by the device's share of the ranks), and intra-device transfers given the fitted
/// latency. Validated and finalized.
Topology calibratedTopology(const CalibrationSettings &settings, const ModelFigures &figures);

/// The calibration as JSON (settings, fits, figures, model parameters, per-point residuals and
/// simulator check), for --json and reports.
nlohmann::json calibrationToJson(const Calibration &calibration);

}  // namespace collplan::calibrate
