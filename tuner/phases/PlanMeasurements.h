// Phase 4, plan the measurements: which variant is measured at which size, in what order, and
// what each is expected to cost (the progress bar's weights and ETA).
#pragma once

#include "tuner/Measurer.h"
#include "tuner/TuneResult.h"

#include <vector>

namespace collplan::tune {

/// One size of one table: the candidates measured there, which take turns.
struct MeasurementGroup {
  size_t table = 0, size = 0;
  std::vector<size_t> variants;
  std::vector<double> weights;  ///< estimated µs of each variant's measurement
};

/// Table by table, size by size; empty groups left out.
struct MeasurementPlan {
  std::vector<MeasurementGroup> groups;
  std::vector<std::vector<std::vector<bool>>> planned;  ///< [table][variant][size]
  double totalWeight = 0;
  size_t totalItems = 0;  ///< (variant, size) measurements
};

/// Every candidate (TableMeasurements::eligible) at every size of its table, weighted by its
/// prediction times the calls a measurement makes (Measurer::expectedCalls) plus the backend's
/// launch overhead. Needs the predictions (pruneTables).
MeasurementPlan planMeasurements(const std::vector<TableResult> &tables, const Measurer &measurer);

}  // namespace collplan::tune
