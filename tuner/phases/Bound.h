// Phase 6b, bound: the topology's lower bound of every table's collective, which the report
// sets beside each bucket's winner (how close to the best possible it is).
#pragma once

#include "tuner/Progress.h"
#include "tuner/TuneResult.h"

namespace collplan::tune {

/// Whether the report can bound the tables: the topology is known — the backend simulates on
/// it, or --topology named it (not `local`, whose figures are hwloc estimates, nor the job's
/// own discovered nodes).
bool topologyKnown(const TuneResult &result);

/// When topologyKnown: each table's bound (runtime/sim/LowerBound.h, memory counted, at the
/// table's root) into TableResult::bound. A topology the bound refuses is said and leaves the
/// tables unbounded.
void boundTables(TuneResult &result, TuneLog &log);

}  // namespace collplan::tune
