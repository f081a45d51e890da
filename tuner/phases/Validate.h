// Before any phase: the settings validated and the run's topology and ranks resolved.
#pragma once

#include "tuner/TuneResult.h"

namespace collplan::tune {

/// Validates everything that needs no work (backend, names, the size range, algorithm names,
/// the budget, that the outputs can be written), so a typo fails in milliseconds. Throws
/// TuneError naming the flag and the reason.
void validateSettings(const TuneSettings &settings);

/// The result the phases fill in: the settings as run (quiet where this process does not
/// report: under mpirun one process speaks; the topology's spec resolved), the topology ("job"
/// where the backend discovers it, else --topology or local), its rank count and fingerprint.
/// Throws TuneError for a topology that cannot be resolved, a rank count other than --ranks or
/// below 2, a root out of range.
TuneResult resolveRequest(const TuneSettings &settings);

}  // namespace collplan::tune
