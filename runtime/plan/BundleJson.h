// Bundle files: per-(collective, dtype, op) size buckets of plans, loaded with full validation.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/ProofRecord.h"

#include <nlohmann/json.hpp>

#include <chrono>
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

/// Parses and validates a bundle document: `expectations` first (a bundle for another machine
/// says so before anything else), every plan (as planFromJson, with `options`), bucket coverage
/// of [0, UINT64_MAX] without gaps or overlaps, plan collective/op/ranks against its table and
/// the bundle, one table per (collective, dtype, op). Throws PlanError.
Bundle bundleFromJson(const nlohmann::json &json, const std::string &origin,
                      const BundleExpectations &expectations = {},
                      const PlanLoadOptions &options = {});

/// Reads (JSON or CBOR), parses and validates a bundle file; with options.onlyRank, each plan
/// holds that rank's program alone. Throws PlanError naming the file.
Bundle loadBundleFile(const std::string &path, const BundleExpectations &expectations = {},
                      const PlanLoadOptions &options = {});

/// What a process that holds one rank of a job loads: rank `rank`'s programs of the bundle at
/// `path` alone (loadBundleFile with onlyRank), once the whole file is known to be sound. The
/// checks that need every rank's programs (transfer matching, deadlock freedom, the proof) are
/// established for the file's content, by SHA-256, in `records`: the first process to load a
/// content loads it whole and proves it, under a lock, and records it; every later one finds
/// the record. The bytes hashed are the bytes parsed, so no edit after the proof can slip in.
/// Throws PlanError naming the file, as a whole load would.
Bundle loadBundleFileForRank(const std::string &path, const BundleExpectations &expectations,
                             int rank, const ProofRecords &records,
                             std::chrono::milliseconds timeout);

/// Validates `bundle` (as bundleFromJson without expectations) and writes it in `encoding`.
void saveBundleFile(const Bundle &bundle, const std::string &path, DocumentEncoding encoding);
/// saveBundleFile in the encoding the path asks for (encodingForPath).
void saveBundleFile(const Bundle &bundle, const std::string &path);

/// The semantic checks of bundleFromJson for a bundle built in memory (the tuner).
void validateBundle(const Bundle &bundle, const std::string &origin,
                    const BundleExpectations &expectations = {});

}  // namespace collplan
