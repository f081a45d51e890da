// planMeasurements: the groups of measurements per table and size, and their weights.
#include "tuner/phases/PlanMeasurements.h"

namespace collplan::tune {

MeasurementPlan planMeasurements(const std::vector<TableResult> &tables,
                                 const Measurer &measurer) {
  MeasurementPlan plan;
  const double overheadUs = measurer.backend().launchOverheadUs();
  for (size_t ti = 0; ti < tables.size(); ++ti) {
    const TableResult &t = tables[ti];
    const TableMeasurements &m = t.measurements;
    plan.planned.emplace_back(t.variants.size(), std::vector<bool>(m.sizes.size(), false));
    for (size_t s = 0; s < m.sizes.size(); ++s) {
      MeasurementGroup g{ti, s, {}, {}};
      for (size_t v = 0; v < t.variants.size(); ++v) {
        if (!m.eligible[v]) continue;
        const double calls = measurer.expectedCalls(m.sizes[s].bytes);
        const double w = m.predictedUs[v][s] * (calls + 1) + overheadUs;
        g.variants.push_back(v);
        g.weights.push_back(w);
        plan.planned[ti][v][s] = true;
        plan.totalWeight += w;
      }
      plan.totalItems += g.variants.size();
      if (!g.variants.empty()) plan.groups.push_back(std::move(g));
    }
  }
  return plan;
}

}  // namespace collplan::tune
