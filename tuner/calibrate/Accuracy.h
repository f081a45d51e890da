// Simulator accuracy: measured backend times of real plans next to simulateTimeUs on a topology.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/topology/Topology.h"
#include "tuner/calibrate/Calibrate.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace collplan::calibrate {

/// A plan to compare, with the label it is reported under ("ring", "binomial-tree", ...).
struct AccuracyCase {
  std::string label;
  Plan plan;
};

/// One (plan, size): the backend's time (correctness checked), the simulator's, and their ratio.
struct AccuracyRow {
  std::string label;
  uint64_t bytes = 0;
  double measuredUs = 0;
  double predictedUs = 0;
  double ratio = 0;  ///< predicted / measured
};

/// The runtime's built-in ring and two-shot allreduce plans for `ranks` ranks.
std::vector<AccuracyCase> builtInAccuracyCases(int ranks);

/// Measures every case at every size with `measure` (backendMeasure runs the correctness check
/// for non-calibration plans) and simulates it on `topology`. Throws SimError when a plan cannot
/// be simulated there, std::invalid_argument when its rank count differs from the topology's.
std::vector<AccuracyRow> measureAccuracy(const std::vector<AccuracyCase> &cases,
                                         const Topology &topology,
                                         const std::vector<uint64_t> &sizes,
                                         const MeasureFn &measure);

/// Median of |ratio − 1| over `rows` (all of them, or those of one label when given).
double medianError(const std::vector<AccuracyRow> &rows, const std::string &label = "");

nlohmann::json accuracyToJson(const std::vector<AccuracyRow> &rows);

}  // namespace collplan::calibrate
