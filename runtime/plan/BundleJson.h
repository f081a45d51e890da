// Bundle files: per-(collective, dtype, op) size buckets of plans, loaded with full validation.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanError.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace collplan {

/// What the loading communicator requires of a bundle; unset members are not checked.
struct BundleExpectations {
  std::optional<int> ranks;
  std::optional<std::string> fingerprint;  ///< Topology::fingerprint() of the machine
  std::optional<std::string> backend;      ///< e.g. "cpu-threads"
};

/// The JSON document of `bundle` ("format": "collplan-bundle"). Does not validate.
nlohmann::json bundleToJson(const Bundle &bundle);

/// Parses and validates a bundle document: every plan (as planFromJson), bucket coverage of
/// [0, UINT64_MAX] without gaps or overlaps, plan collective/op/ranks against its table and the
/// bundle, one table per (collective, dtype, op), then `expectations`. Throws PlanError.
Bundle bundleFromJson(const nlohmann::json &json, const std::string &origin,
                      const BundleExpectations &expectations = {});

/// Reads, parses and validates a bundle file. Throws PlanError naming the file.
Bundle loadBundleFile(const std::string &path, const BundleExpectations &expectations = {});

/// Validates `bundle` (as bundleFromJson without expectations) and writes it as indented JSON.
void saveBundleFile(const Bundle &bundle, const std::string &path);

/// The semantic checks of bundleFromJson for a bundle built in memory (the tuner).
void validateBundle(const Bundle &bundle, const std::string &origin,
                    const BundleExpectations &expectations = {});

}  // namespace collplan
