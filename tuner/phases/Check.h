// Phase 2, check: every compiled variant's result checked once before it is timed.
#pragma once

#include "tuner/Measurer.h"
#include "tuner/Progress.h"
#include "tuner/TuneResult.h"

#include <vector>

namespace collplan::tune {

/// Runs Measurer::check on every variant of every table (before pruning, so the best prediction
/// pruning compares with is one that can run here), until Ctrl-C. A variant the runner cannot
/// run is Unsupported; one that computes a wrong result is Wrong (said loudly: it is never timed
/// or chosen); one that fails to run is RunFailed. Returns the number of wrong variants.
int checkTables(std::vector<TableResult> &tables, const Measurer &measurer, TuneLog &log);

}  // namespace collplan::tune
