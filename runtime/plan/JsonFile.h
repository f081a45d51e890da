// Reading and writing whole JSON files with PlanError diagnostics (internal to runtime/plan).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace collplan {

/// Parses the file at `path`; a missing/unreadable file or invalid JSON throws PlanError naming
/// the file (and the parser's byte position).
nlohmann::json readJsonFile(const std::string &path);

/// Writes `json` indented with a trailing newline; failure throws PlanError naming the file.
void writeJsonFile(const nlohmann::json &json, const std::string &path);

}  // namespace collplan
