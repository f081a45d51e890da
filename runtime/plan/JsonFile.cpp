// File I/O for plan and bundle documents: JSON or CBOR, with a rank filter while parsing.
#include "runtime/plan/JsonFile.h"

#include "runtime/core/Files.h"
#include "runtime/core/JsonDocument.h"
#include "runtime/plan/PlanError.h"

#include <vector>

namespace collplan {
namespace {

using nlohmann::json;

/// Keeps the "channels" of programs[onlyRank] only, in every "programs" array of a document (a
/// plan has one, a bundle one per bucket), except in the stage plans of a composed plan, whose
/// rank numbers are not the world's (a rank builds its program from several of theirs).
JsonMemberFilter programFilter(int onlyRank) {
  if (onlyRank < 0) return {};
  return [onlyRank](const std::vector<JsonStep> &path, const std::string &key) {
    const size_t n = path.size();
    const bool otherRanksProgram = key == "channels" && n >= 2 && path[n - 1].inArray &&
                                   path[n - 1].index != size_t(onlyRank) &&
                                   !path[n - 2].inArray && path[n - 2].key == "programs";
    if (!otherRanksProgram) return true;
    for (const JsonStep &step : path)
      if (!step.inArray && step.key == "composed") return true;
    return false;
  };
}

/// JSON documents start with '{' (after whitespace); a CBOR map starts with a major type 5 byte.
bool looksLikeCbor(std::string_view bytes) {
  for (const char c : bytes) {
    const auto b = uint8_t(c);
    if (b == ' ' || b == '\n' || b == '\r' || b == '\t') continue;
    return (b >> 5) == 5;
  }
  return false;
}

}  // namespace

DocumentEncoding encodingForPath(const std::string &path) {
  const std::string suffix = ".cbor";
  const bool cbor = path.size() >= suffix.size() &&
                    path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return cbor ? DocumentEncoding::Cbor : DocumentEncoding::Json;
}

std::string_view toString(DocumentEncoding encoding) {
  return encoding == DocumentEncoding::Cbor ? "cbor" : "json";
}

json readPlanDocument(const std::string &path, int onlyRank) {
  return parsePlanDocument(readPlanBytes(path), path, onlyRank);
}

json parsePlanDocument(std::string_view bytes, const std::string &origin, int onlyRank) {
  try {
    return parseJsonDocument(bytes, looksLikeCbor(bytes), programFilter(onlyRank));
  } catch (const JsonSyntaxError &e) {
    throw PlanError(origin, "", e.what());
  }
}

std::string readPlanBytes(const std::string &path) {
  try {
    return readWholeFile(path);
  } catch (const FileError &e) {
    throw PlanError(path, "", e.reason());
  }
}

void writePlanDocument(const json &doc, const std::string &path, DocumentEncoding encoding) {
  std::string bytes;
  try {
    if (encoding == DocumentEncoding::Cbor) {
      const std::vector<uint8_t> cbor = json::to_cbor(doc);
      bytes.assign(cbor.begin(), cbor.end());
    } else {
      bytes = doc.dump() + '\n';
    }
  } catch (const json::exception &e) {
    throw PlanError(path, "", std::string("cannot serialise: ") + e.what());
  }
  try {
    writeWholeFile(path, bytes);
  } catch (const FileError &e) {
    throw PlanError(path, "", e.reason());
  }
}

std::string oldVersionReason(const char *what, int64_t version, int current) {
  std::string reason = "unsupported " + std::string(what) + " format version " +
                       std::to_string(version) + " (this build reads version " +
                       std::to_string(current) + ")";
  if (version >= 1 && version < current)
    reason += ": version " + std::to_string(version) +
              " predates channels and transfers matched in program order; regenerate the file "
              "with this build (" +
              (std::string(what) == "bundle" ? "plan-tune, or plans/regenerate.sh for the "
                                               "shipped bundles"
                                             : "plan-compile") +
              ")";
  return reason;
}

}  // namespace collplan
