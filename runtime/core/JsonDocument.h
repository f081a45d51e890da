// JsonDocument: JSON and CBOR documents read into nlohmann::json with bounded nesting, in time
// linear in the document, optionally leaving members out while reading.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace collplan {

/// The deepest nesting of arrays and objects any collplan document may have. The deepest real
/// one, an op's `after` entry inside a bundle, is 14 levels down; a plan's `params` and an
/// embedded topology get the rest. Deeper input is refused before it is built: nlohmann's CBOR
/// reader recurses once per level, and copying, comparing or printing a json value recurses
/// too, so a 1 MB file of nested arrays would otherwise overflow the stack.
inline constexpr int kMaxJsonDepth = 64;

/// A document that is not JSON (or CBOR) or nests too deeply; what() is the reason, without the
/// file name (the caller's error type adds it).
class JsonSyntaxError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// How a container being read was reached from its parent: by `key` in an object, else by
/// `index` in an array.
struct JsonStep {
  std::string key;
  size_t index = 0;
  bool inArray = false;
};

/// Whether to keep member `key` of the object at `path` (the steps from the root to it); a
/// member it refuses is skipped while reading, never built.
using JsonMemberFilter = std::function<bool(const std::vector<JsonStep> &path,
                                            const std::string &key)>;

/// Parses `bytes` as JSON, or as CBOR when `cbor`. Throws JsonSyntaxError ("not valid JSON:
/// <nlohmann's reason>", "... nest deeper than 64 levels ...").
nlohmann::json parseJsonDocument(std::string_view bytes, bool cbor,
                                 const JsonMemberFilter &keep = {},
                                 int maxDepth = kMaxJsonDepth);

}  // namespace collplan
