// selectWinners: Selection's pure choice applied to each table, unfinished sizes left out.
#include "tuner/phases/Select.h"

namespace collplan::tune {
namespace {

/// Whether every candidate planned at size s of `t` was measured.
bool finished(const TableResult &t, const std::vector<std::vector<bool>> &planned, size_t s) {
  for (size_t v = 0; v < t.variants.size(); ++v)
    if (planned[v][s] && t.measurements.eligible[v] && !t.measurements.byVariant[v][s].done)
      return false;
  return true;
}

}  // namespace

void selectWinners(std::vector<TableResult> &tables, const MeasurementPlan &plan, bool partial) {
  for (size_t ti = 0; ti < tables.size(); ++ti) {
    TableResult &t = tables[ti];
    t.choices = chooseWinners(t.measurements);
    for (size_t s = 0; s < t.measurements.sizes.size(); ++s)
      if (!finished(t, plan.planned[ti], s)) t.choices[s] = SizeChoice{};
    t.complete = !partial;
    t.buckets = mergeBuckets(t.measurements, t.choices);
  }
}

}  // namespace collplan::tune
