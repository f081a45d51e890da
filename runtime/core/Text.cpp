// Text helpers every layer shares: XML escaping for the SVG and HTML the tools and the tuner's
// reports write, byte sizes for people.
#include "runtime/core/Text.h"

#include <cstdio>

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

std::string formatBytes(uint64_t bytes) {
  static const char *const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0 || v == double(uint64_t(v)))
    std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(v), kUnits[u]);
  else
    std::snprintf(buf, sizeof buf, "%.3g %s", v, kUnits[u]);
  return buf;
}

}  // namespace collplan
