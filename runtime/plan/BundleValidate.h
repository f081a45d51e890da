// Bundle-level checks shared by the bundle loader and validateBundle (internal to runtime/plan).
#pragma once

#include "runtime/plan/BundleJson.h"

namespace collplan {

/// Rank count, fingerprint and backend against what the caller expects.
void checkBundleExpectations(const Bundle &bundle, const std::string &origin,
                             const BundleExpectations &expectations);

/// One table per (collective, dtype, op); op present iff the collective reduces; buckets sorted
/// and covering [0, UINT64_MAX] without gap or overlap; each plan's collective, op and ranks
/// matching its table and the bundle. With `validatePlans`, each plan also gets validatePlanAt.
void checkBundleTables(const Bundle &bundle, const std::string &origin, bool validatePlans);

}  // namespace collplan
