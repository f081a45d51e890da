// Phase 7, write: the tuned bundle built from the tables' buckets, and written.
#pragma once

#include "tuner/Measurer.h"
#include "tuner/TuneResult.h"

#include <optional>
#include <string>

namespace collplan::tune {

/// The bundle of `result`: tool version, topology (fingerprint and description), backend,
/// ranks, under `tuner` the settings, α, bandwidth, the cost model's source, `partial` and how
/// `measurer` measured; one table per table with buckets, each with its winner's plan and the
/// winner's and runner-up's measured and predicted times. Nothing when no table has a bucket.
/// Throws TuneError when the bundle does not validate (a bug).
std::optional<Bundle> buildBundle(const TuneResult &result, const Measurer &measurer);

/// Writes the bundle (saveBundleFile validates it first). Throws TuneError naming the path.
void writeBundle(const TuneResult &result, const std::string &path);

}  // namespace collplan::tune
