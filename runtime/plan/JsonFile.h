// Reading and writing plan and bundle documents as JSON or CBOR (internal to runtime/plan).
#pragma once

#include "runtime/plan/PlanJson.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace collplan {

/// Parses the file at `path`, JSON or CBOR (told apart by the first byte). With `onlyRank` >= 0
/// the "channels" member of every element of a "programs" array other than element `onlyRank`
/// is skipped while parsing, so a rank builds only its own programs of a plan or bundle.
/// A missing or unreadable file, invalid JSON or CBOR throws PlanError naming the file.
nlohmann::json readPlanDocument(const std::string &path, int onlyRank = -1);
/// readPlanDocument's parse of bytes already read; `origin` names them in errors.
nlohmann::json parsePlanDocument(std::string_view bytes, const std::string &origin,
                                 int onlyRank = -1);
/// The bytes of the file at `path` (readWholeFile); failure throws PlanError naming the file.
std::string readPlanBytes(const std::string &path);

/// Writes `json` compactly (JSON without indentation, with a trailing newline, or CBOR);
/// failure throws PlanError naming the file.
void writePlanDocument(const nlohmann::json &json, const std::string &path,
                       DocumentEncoding encoding);

/// The error for a document whose "version" is older than this build reads: it names the
/// version and how to regenerate the file. `what` is "plan" or "bundle".
std::string oldVersionReason(const char *what, int64_t version, int current);

}  // namespace collplan
