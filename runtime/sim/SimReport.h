// Post-processing of a simulation: utilisation figures and the critical path.
#pragma once

#include "runtime/sim/SimModel.h"
#include "runtime/sim/Simulator.h"

#include <vector>

namespace collplan {

/// Fills the utilisation fields of `result.links` and `result.devices` from their byte counts
/// and `result.totalUs`.
void finishUsage(const Topology &topo, SimResult &result);

/// Walks back from the op that ends last: each op was released either by its recv's data
/// (then the sending op precedes it) or by the previous op of its rank, whichever came later.
std::vector<CriticalStep> findCriticalPath(const Plan &plan, const SimModel &model,
                                           const SimResult &result);

}  // namespace collplan
