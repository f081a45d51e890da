// Size rounding, repetition counts and descriptions of benchmark cases.
#include "tuner/bench/BenchCase.h"

#include <algorithm>

namespace collplan::bench {

std::vector<SizePoint> sizePoints(const BenchCase &c, const std::vector<uint64_t> &requestedBytes) {
  const uint64_t blocks = uint64_t(std::max(1, messageBlocks(c.kind, c.ranks)));
  const uint64_t element = dtypeSize(c.dtype);
  std::vector<SizePoint> points;
  for (uint64_t bytes : requestedBytes) {
    const uint64_t count = std::max<uint64_t>(1, bytes / (blocks * element));
    SizePoint p;
    p.count = size_t(count);
    p.elements = count * blocks;
    p.bytes = p.elements * element;
    if (c.kind == CollectiveKind::Barrier) p = SizePoint{};
    if (points.empty() || points.back().bytes != p.bytes) points.push_back(p);
  }
  return points;
}

int autoRepetitions(uint64_t bytes) {
  return bytes <= (128u << 10) ? 100 : bytes <= (2u << 20) ? 30 : bytes <= (8u << 20) ? 10 : 5;
}

std::string describe(const BenchCase &c) {
  std::string s = std::string(toString(c.kind)) + " " + std::string(toString(c.dtype));
  if (needsReduceOp(c.kind)) s += " " + std::string(toString(c.op));
  if (needsRoot(c.kind)) s += " root " + std::to_string(c.root);
  return s + " on " + std::to_string(c.ranks) + " ranks";
}

}  // namespace collplan::bench
