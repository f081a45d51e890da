// Byte-size parsing, formatting and geometric sweeps for plan-bench and the tuner.
#include "tuner/measure/ByteSize.h"

#include <cctype>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace collplan::measure {

std::optional<uint64_t> parseByteSize(const std::string &text) {
  size_t i = 0;
  uint64_t value = 0;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const uint64_t digit = uint64_t(text[i] - '0');
    if (value > (kMax - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
    ++i;
  }
  if (i == 0) return std::nullopt;
  std::string suffix;
  for (; i < text.size(); ++i) suffix += char(std::toupper(static_cast<unsigned char>(text[i])));
  int shift = 0;
  if (!suffix.empty() && (suffix[0] == 'K' || suffix[0] == 'M' || suffix[0] == 'G')) {
    shift = suffix[0] == 'K' ? 10 : suffix[0] == 'M' ? 20 : 30;
    suffix.erase(0, 1);
  }
  if (!(suffix.empty() || suffix == "B" || (shift > 0 && suffix == "IB"))) return std::nullopt;
  if (shift > 0 && value > (kMax >> shift)) return std::nullopt;
  return value << shift;
}

uint64_t parseByteSizeOption(const std::string &flag, const std::string &text) {
  if (const std::optional<uint64_t> v = parseByteSize(text)) return *v;
  throw std::invalid_argument(flag + ": \"" + text +
                              "\" is not a byte size (digits with an optional K, M or G suffix, "
                              "e.g. 64M)");
}

std::vector<uint64_t> sizeSweep(uint64_t minBytes, uint64_t maxBytes, int64_t signedFactor) {
  if (minBytes == 0) throw std::invalid_argument("--min-bytes must be at least 1");
  if (minBytes > maxBytes)
    throw std::invalid_argument("--min-bytes (" + std::to_string(minBytes) +
                                ") is larger than --max-bytes (" + std::to_string(maxBytes) + ")");
  if (signedFactor < 2)
    throw std::invalid_argument("--step-factor must be at least 2, got " +
                                std::to_string(signedFactor));
  const uint64_t factor = uint64_t(signedFactor);
  std::vector<uint64_t> sizes;
  for (uint64_t s = minBytes;; s *= factor) {
    sizes.push_back(s);
    if (s > maxBytes / factor) break;  // the next step would pass max (or overflow)
  }
  return sizes;
}

}  // namespace collplan::measure
