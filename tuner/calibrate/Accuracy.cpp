// measureAccuracy: predicted / measured for real plans on the calibrated topology.
#include "tuner/calibrate/Accuracy.h"

#include "runtime/plan/DefaultPlans.h"
#include "runtime/sim/Simulator.h"

#include <cmath>
#include <stdexcept>

namespace collplan::calibrate {

std::vector<AccuracyCase> builtInAccuracyCases(int ranks) {
  return {{"ring", ringAllReducePlan(ranks, ReduceOp::Sum)},
          {"two-shot", twoShotAllReducePlan(ranks, ReduceOp::Sum)}};
}

std::vector<AccuracyRow> measureAccuracy(const std::vector<AccuracyCase> &cases,
                                         const Topology &topology,
                                         const std::vector<uint64_t> &sizes,
                                         const MeasureFn &measure) {
  std::vector<AccuracyRow> rows;
  for (const AccuracyCase &c : cases) {
    if (c.plan.ranks != topology.numRanks())
      throw std::invalid_argument(c.label + ": the plan has " + std::to_string(c.plan.ranks) +
                                  " ranks but the topology has " +
                                  std::to_string(topology.numRanks()));
    std::vector<double> predicted;  // simulate first: an unsimulatable plan fails before timing
    for (uint64_t bytes : sizes) predicted.push_back(simulateTimeUs(c.plan, topology, bytes));
    std::vector<double> measured = measure(c.plan, sizes);
    for (size_t i = 0; i < sizes.size() && i < measured.size(); ++i)
      rows.push_back({c.label, sizes[i], measured[i], predicted[i],
                      measured[i] > 0 ? predicted[i] / measured[i] : 0.0});
  }
  return rows;
}

double medianError(const std::vector<AccuracyRow> &rows, const std::string &label) {
  std::vector<double> errors;
  for (const AccuracyRow &row : rows)
    if (label.empty() || row.label == label) errors.push_back(std::fabs(row.ratio - 1.0));
  return median(errors);
}

nlohmann::json accuracyToJson(const std::vector<AccuracyRow> &rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const AccuracyRow &row : rows)
    out.push_back({{"plan", row.label},
                   {"bytes", row.bytes},
                   {"measured_us", row.measuredUs},
                   {"predicted_us", row.predictedUs},
                   {"ratio", row.ratio}});
  return out;
}

}  // namespace collplan::calibrate
