// Phase 1, enumerate and compile: the tables plan-tune fills, with their variants compiled.
#pragma once

#include "tuner/Progress.h"
#include "tuner/TuneResult.h"

#include <vector>

namespace collplan::tune {

/// One table per (collective, dtype, op) the settings ask for (ops only for reducing
/// collectives), on `ranks` ranks, each at the sizes of the settings' range; the variants of a
/// (collective, op) are enumerated and compiled once and shared by its dtypes (plans do not
/// depend on the dtype). Says per collective how many variants compiled, and every compile
/// failure. Throws TuneError when no variant compiled at all.
std::vector<TableResult> compileTables(const TuneSettings &settings, const Topology &topology,
                                       int ranks, TuneLog &log);

}  // namespace collplan::tune
