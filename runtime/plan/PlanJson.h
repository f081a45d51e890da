// Plan files: the JSON form of a Plan, and loading with full validation (see README.md).
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanError.h"

#include <nlohmann/json.hpp>

#include <string>

namespace collplan {

/// The JSON document of `plan` ("format": "collplan-plan"); empty fields are omitted. Does not
/// validate: call validatePlan first when the plan comes from an untrusted builder.
nlohmann::json planToJson(const Plan &plan);

/// Parses and fully validates a plan document (types, names, ranges, op shapes, send/recv
/// matching, deadlock freedom). `origin` names the source in errors. Throws PlanError.
Plan planFromJson(const nlohmann::json &json, const std::string &origin);

/// Like planFromJson, for a document that is part of a larger one (a bundle's bucket): field
/// paths in errors start at `path`.
Plan planFromJsonAt(const nlohmann::json &json, const std::string &origin, const FieldPath &path);

/// Reads, parses and validates a plan file. Throws PlanError naming the file.
Plan loadPlanFile(const std::string &path);

/// Validates `plan` (so no invalid plan is ever shipped) and writes it as indented JSON.
/// Throws PlanError when the plan is invalid or the file cannot be written.
void savePlanFile(const Plan &plan, const std::string &path);

}  // namespace collplan
