// Phase 5, measure: the planned measurements, size by size, within the budget and until Ctrl-C.
#pragma once

#include "tuner/Measurer.h"
#include "tuner/Progress.h"
#include "tuner/TuneResult.h"
#include "tuner/phases/PlanMeasurements.h"

#include <vector>

namespace collplan::tune {

/// How measuring ended.
struct MeasureOutcome {
  bool interrupted = false;      ///< Ctrl-C: stopped after the measurement under way
  bool budgetExhausted = false;  ///< the budget was spent at a size boundary
  size_t finished = 0;           ///< (variant, size) measurements begun
  int wrongVariants = 0;         ///< variants found wrong while measuring
};

/// Measures `plan`'s groups in order into the tables (TableMeasurements::byVariant). At each
/// size the candidates take turns, one batch each per round, until each is stable, so a burst
/// of load on a shared machine is spread over all of them instead of landing on whichever
/// variant happened to be running. A wrong result excludes the variant as Wrong (an alert), a
/// failure as RunFailed. `budgetSeconds` (0: none) is checked between sizes, so the size under
/// way is finished (one batch per variant once the estimate passes the budget) and even a
/// budget shorter than one size leaves that size measured. Drives the log's progress bar.
MeasureOutcome measureTables(std::vector<TableResult> &tables, const MeasurementPlan &plan,
                             const Measurer &measurer, double budgetSeconds, TuneLog &log);

}  // namespace collplan::tune
