// XML escaping for the SVG and HTML the tools and the tuner's reports write.
#include "runtime/core/Text.h"

namespace collplan {

std::string xmlEscape(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
    case '&': s += "&amp;"; break;
    case '<': s += "&lt;"; break;
    case '>': s += "&gt;"; break;
    case '"': s += "&quot;"; break;
    case '\'': s += "&apos;"; break;
    default: s += ch;
    }
  }
  return s;
}

}  // namespace collplan
