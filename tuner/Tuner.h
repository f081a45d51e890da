// plan-tune as one call: its phases in a row, from settings to a bundle.
#pragma once

#include "tuner/TuneResult.h"
#include "tuner/phases/Validate.h"
#include "tuner/phases/WriteBundle.h"

namespace collplan::tune {

/// Runs the whole tuning: validate and resolve (phases/Validate.h), then enumerate and compile,
/// check, prune, plan the measurements, measure, select and build the bundle (phases/). Notes go
/// to stderr unless quiet or this process does not report (Backend::reportsLaunches: under
/// mpirun, one process speaks); the progress bar to stderr when enabled. Throws TuneError on a
/// bad request; measurement failures of single variants are notes, never fatal.
TuneResult runTune(const TuneSettings &settings);

}  // namespace collplan::tune
