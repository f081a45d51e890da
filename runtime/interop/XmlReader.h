// A small strict XML reader for algorithm files: elements, attributes, comments, the declaration.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collplan {

/// Nesting bound of XML documents; the JSON reader's (kMaxJsonDepth), for the same reason: a
/// small file must not exhaust the stack of a recursive consumer.
inline constexpr int kMaxXmlDepth = 64;
/// Largest XML document read (64 MiB): an MSCCL algorithm for 1024 GPUs is a few MiB.
inline constexpr size_t kMaxXmlBytes = size_t(64) << 20;

/// One element: its name, attributes in document order, children, and the line it opens on.
struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<XmlElement> children;
  int line = 0;

  /// The value of attribute `key`, or nullptr.
  const std::string *attribute(std::string_view key) const;
};

/// Parses `text` as one XML document and returns its root element. Accepts the XML declaration,
/// comments, whitespace between elements, and the five predefined entities and character
/// references in attribute values; refuses DTDs, processing instructions, CDATA, text content,
/// duplicate attributes, mismatched tags, more than kMaxXmlDepth levels or kMaxXmlBytes bytes.
/// Throws PlanError "<origin>:<line>: <reason>".
XmlElement parseXml(std::string_view text, const std::string &origin);

} // namespace collplan
