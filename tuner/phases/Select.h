// Phase 6, select: the winner per size and the buckets of every table.
#pragma once

#include "tuner/TuneResult.h"
#include "tuner/phases/PlanMeasurements.h"

#include <vector>

namespace collplan::tune {

/// Per table: the winners per size (chooseWinners), where a size counts only when every
/// variant `plan` planned for it was measured or dropped (a partial run never crowns a winner
/// among a subset), then the merged buckets (mergeBuckets). `partial` marks the tables
/// incomplete.
void selectWinners(std::vector<TableResult> &tables, const MeasurementPlan &plan, bool partial);

}  // namespace collplan::tune
