// Plan files: the JSON form of a Plan, its encodings on disk, and loading with full validation.
#pragma once

#include "runtime/plan/Composition.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanError.h"

#include <nlohmann/json.hpp>

#include <string>

namespace collplan {

/// How plan and bundle documents are stored: compact JSON (no indentation), or CBOR
/// (nlohmann's to_cbor: the same document, binary). Loaders tell them apart by the first byte.
enum class DocumentEncoding : uint8_t { Json, Cbor };

/// CBOR for paths ending in ".cbor", JSON otherwise.
DocumentEncoding encodingForPath(const std::string &path);
/// "json" or "cbor".
std::string_view toString(DocumentEncoding encoding);

/// What a loader builds of each plan.
struct PlanLoadOptions {
  /// -1: every rank's program. A rank: only that rank's program is parsed and validated
  /// (Plan::onlyRank); the others are skipped while reading the file and stay empty. Checks
  /// that need every program (transfer matching, deadlock freedom) are left to whoever wrote or
  /// verified the whole plan.
  int onlyRank = -1;
  /// After validation, prove the plan computes its collective (verifyPlan; the error names the
  /// op, the unit and the reason). It needs every program, so a load with `onlyRank` skips it.
  /// Turn it off only for files you trust: it costs about as much as parsing them.
  bool verify = true;
  /// The proof's memory grows with the units of every rank's buffers and its time with the units
  /// every op reads, writes and sends; a plan whose sum of both exceeds this is refused before
  /// proving (PlanError), so that a small file cannot make loading run for hours or exhaust
  /// memory. The default (2^26, 6.7·10^7) admits a 1024-rank ring allreduce in 4 slices
  /// (4.9·10^7) and keeps a proof to seconds (a Release build proves 5·10^7 in 4 s, 0.7 GiB).
  /// A larger plan from a source you trust loads with `verify` off. A symmetric plan loaded
  /// for every rank is refused before it is instantiated past this (4x without `verify`).
  uint64_t maxProofUnits = uint64_t(1) << 26;
};

/// The JSON object of one op, as plan files write it (also for messages that show an op).
nlohmann::json planOpToJson(const PlanOp &op);

/// The JSON document of `plan` ("format": "collplan-plan"); empty fields are omitted. Does not
/// validate: call validatePlan first when the plan comes from an untrusted builder.
nlohmann::json planToJson(const Plan &plan);

/// Parses and validates a plan document (types, names, ranges, op shapes, transfer matching,
/// deadlock freedom; with options.onlyRank, that rank's program alone). `origin` names the
/// source in errors. Throws PlanError.
Plan planFromJson(const nlohmann::json &json, const std::string &origin,
                  const PlanLoadOptions &options = {});

/// Like planFromJson, for a document that is part of a larger one (a bundle's bucket): field
/// paths in errors start at `path`.
Plan planFromJsonAt(const nlohmann::json &json, const std::string &origin, const FieldPath &path,
                    const PlanLoadOptions &options = {});

/// The stage plans of a composed plan document ("composed"), each read, validated and, as
/// `options` ask, proven at its own size, and checked to compose into the document's
/// collective, without building any rank's program: what a check of a composed plan too large
/// to build whole reads (Composition.h). Throws PlanError.
HierarchicalStages composedStagesFromJson(const nlohmann::json &json, const std::string &origin,
                                          const PlanLoadOptions &options = {});

/// Reads (JSON or CBOR), parses and validates a plan file. Throws PlanError naming the file.
Plan loadPlanFile(const std::string &path, const PlanLoadOptions &options = {});

/// Validates `plan` (so no invalid plan is ever shipped) and writes it in `encoding`.
/// Throws PlanError when the plan is invalid, partial, or the file cannot be written.
void savePlanFile(const Plan &plan, const std::string &path, DocumentEncoding encoding);
/// savePlanFile in the encoding the path asks for (encodingForPath).
void savePlanFile(const Plan &plan, const std::string &path);

}  // namespace collplan
