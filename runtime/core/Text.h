// Small text and integer helpers every layer shares: lists joined for messages, XML escaping,
// powers of two.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace collplan {

/// "8 B", "64 KiB", "1.5 MiB": byte sizes for progress lines, tables and plot labels.
std::string formatBytes(uint64_t bytes);

/// One list item as text: strings as they are, integers in decimal.
template <typename T>
std::string itemText(const T &item) {
  if constexpr (std::is_arithmetic_v<T>) return std::to_string(item);
  else return std::string(std::string_view(item));
}

/// "a, b, c": the items of any range of strings or integers, `separator` between them.
template <typename Range>
std::string joined(const Range &items, std::string_view separator = ", ") {
  std::string out;
  bool first = true;
  for (const auto &item : items) {
    if (!first) out += separator;
    first = false;
    out += itemText(item);
  }
  return out;
}

/// `text` with &, <, >, " and ' escaped, for XML (SVG, HTML) text and attribute values.
std::string xmlEscape(std::string_view text);

constexpr bool isPowerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

/// The largest power of two that is at most `n` (n >= 1).
constexpr int floorPowerOfTwo(int n) {
  int p = 1;
  while (p <= n / 2) p *= 2;
  return p;
}

/// The smallest k with 2^k >= n (0 for n <= 1).
constexpr int ceilLog2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

}  // namespace collplan
