// Formatting and strict parsing of "buf[begin:end]" buffer references.
#include "runtime/plan/BufRefText.h"

#include <charconv>
#include <limits>

namespace collplan {

std::string formatBufRef(const BufRef &ref) {
  return std::string(toString(ref.buf)) + '[' + std::to_string(ref.offset) + ':' +
         std::to_string(uint64_t(ref.offset) + ref.length) + ']';
}

/// Parses a decimal uint32 occupying all of `text` (no sign, no spaces).
static bool parseUnit(std::string_view text, uint32_t &value) {
  if (text.empty()) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

bool parseBufRef(std::string_view text, BufRef &out, std::string &why) {
  const std::string expected = "expected \"in|out|tmp[begin:end]\", got \"" + std::string(text) + '"';
  size_t open = text.find('[');
  if (open == std::string_view::npos || text.size() < open + 2 || text.back() != ']') {
    why = "malformed buffer reference: " + expected;
    return false;
  }
  auto buf = parseBufferKind(text.substr(0, open));
  if (!buf) {
    why = "unknown buffer \"" + std::string(text.substr(0, open)) + "\" (expected in, out or tmp)";
    return false;
  }
  std::string_view range = text.substr(open + 1, text.size() - open - 2);
  size_t colon = range.find(':');
  uint32_t begin = 0, end = 0;
  if (colon == std::string_view::npos || !parseUnit(range.substr(0, colon), begin) ||
      !parseUnit(range.substr(colon + 1), end)) {
    why = "malformed buffer reference: " + expected;
    return false;
  }
  if (end <= begin) {
    why = "empty or reversed unit range in \"" + std::string(text) + "\" (end must exceed begin)";
    return false;
  }
  out = BufRef{*buf, begin, end - begin};
  return true;
}

std::string formatOpPath(int rank, uint32_t channel, size_t op) {
  return "programs[" + std::to_string(rank) + "].channels[" + std::to_string(channel) + "].ops[" +
         std::to_string(op) + "]";
}

}  // namespace collplan
