// countNoun: "1 chunk", "4 chunks" — counts in messages and reports with the noun's number.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace collplan {

/// `n` and `noun` (singular), with an "s" unless `n` is 1: countNoun(1, "unit") == "1 unit".
inline std::string countNoun(int64_t n, std::string_view noun) {
  std::string s = std::to_string(n) + " ";
  s += noun;
  if (n != 1) s += "s";
  return s;
}

}  // namespace collplan
