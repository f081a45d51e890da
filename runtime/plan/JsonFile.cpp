// File I/O for plan and bundle documents: JSON or CBOR, with a rank filter while parsing.
#include "runtime/plan/JsonFile.h"

#include "runtime/core/Files.h"
#include "runtime/core/JsonText.h"
#include "runtime/plan/PlanError.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace collplan {
namespace {

using nlohmann::json;

/// Keeps the "channels" of programs[onlyRank] only, in every "programs" array of a document (a
/// plan has one, a bundle one per bucket). nlohmann calls it for every parse event with the
/// nesting depth: an object's members are one deeper than the object, an array's elements too.
class ProgramFilter {
public:
  explicit ProgramFilter(int onlyRank) : onlyRank_(onlyRank) {}

  bool operator()(int depth, json::parse_event_t event, json &parsed) {
    const size_t d = size_t(depth);
    switch (event) {
    case json::parse_event_t::key:
      if (lastKey_.size() <= d) lastKey_.resize(d + 1);
      lastKey_[d] = parsed.get<std::string>();
      return !(programsDepth_ >= 0 && depth == programsDepth_ + 2 && lastKey_[d] == "channels" &&
               index_ != onlyRank_);
    case json::parse_event_t::array_start:
      if (d < lastKey_.size() && lastKey_[d] == "programs") {
        programsDepth_ = depth;
        index_ = -1;
      }
      return true;
    case json::parse_event_t::object_start:
      if (programsDepth_ >= 0 && depth == programsDepth_ + 1) ++index_;
      return true;
    case json::parse_event_t::array_end:
      if (depth == programsDepth_) programsDepth_ = -1;
      return true;
    default:
      return true;
    }
  }

private:
  int onlyRank_;
  std::vector<std::string> lastKey_;  ///< the last key seen at each depth
  int programsDepth_ = -1;            ///< depth of the "programs" array being read, or -1
  int index_ = -1;                    ///< element of that array being read
};

std::string readBytes(const std::string &path) {
  try {
    return readWholeFile(path);
  } catch (const FileError &e) {
    throw PlanError(path, "", e.reason());
  }
}

/// JSON documents start with '{' (after whitespace); a CBOR map starts with a major type 5 byte.
bool looksLikeCbor(const std::string &bytes) {
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
  const std::string bytes = readBytes(path);
  const bool cbor = looksLikeCbor(bytes);
  json doc;
  ProgramFilter filter(onlyRank);
  json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json &parsed) {
    return onlyRank < 0 || filter(depth, event, parsed);
  };
  nlohmann::detail::json_sax_dom_callback_parser<json> sax(doc, callback, true);
  try {
    json::sax_parse(bytes, &sax, cbor ? json::input_format_t::cbor : json::input_format_t::json);
  } catch (const json::exception &e) {
    throw PlanError(path, "", std::string(cbor ? "not valid CBOR: " : "not valid JSON: ") +
                                  jsonErrorText(e));
  }
  return doc;
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
