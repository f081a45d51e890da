// Size rounding, call shapes, repetition counts and descriptions of benchmark cases.
#include "tuner/measure/BenchCase.h"

#include <algorithm>

namespace collplan::measure {

SizePoint pointOf(const BenchCase &c, size_t count) {
  return c.kind == CollectiveKind::Barrier ? SizePoint{} : callPoint(c, count);
}

SizePoint callPoint(const BenchCase &c, size_t count) {
  SizePoint p;
  p.count = count;
  p.elements = uint64_t(count) * uint64_t(std::max(1, messageBlocks(c.kind, c.ranks)));
  p.bytes = p.elements * dtypeSize(c.dtype);
  return p;
}

std::vector<SizePoint> sizePoints(const BenchCase &c, const std::vector<uint64_t> &requestedBytes) {
  const uint64_t perCount = std::max<uint64_t>(1, pointOf(c, 1).bytes);
  std::vector<SizePoint> points;
  for (uint64_t bytes : requestedBytes) {
    const SizePoint p = pointOf(c, size_t(std::max<uint64_t>(1, bytes / perCount)));
    if (points.empty() || points.back().bytes != p.bytes) points.push_back(p);
  }
  return points;
}

size_t blockBytes(const BenchCase &c, size_t count) { return count * dtypeSize(c.dtype); }

size_t inputBytes(const BenchCase &c, int rank, size_t count) {
  return size_t(inputBlocks(c.kind, c.ranks, rank, c.root)) * blockBytes(c, count);
}

size_t outputBytes(const BenchCase &c, int rank, size_t count) {
  return size_t(outputBlocks(c.kind, c.ranks, rank, c.root)) * blockBytes(c, count);
}

CallBuffers callOf(const BenchCase &c, int rank, const SizePoint &size, const void *in,
                   void *out) {
  CallBuffers call;
  call.in = in;
  call.out = out;
  call.inBytes = inputBytes(c, rank, size.count);
  call.outBytes = outputBytes(c, rank, size.count);
  call.count = size.count;
  call.dtype = c.dtype;
  call.op = c.op;
  return call;
}

int autoRepetitions(uint64_t bytes) {
  return bytes <= (128u << 10) ? 100 : bytes <= (2u << 20) ? 30 : bytes <= (8u << 20) ? 10 : 5;
}

std::string caseName(const BenchCase &c) {
  std::string s = std::string(toString(c.kind)) + " " + std::string(toString(c.dtype));
  if (needsReduceOp(c.kind)) s += " " + std::string(toString(c.op));
  if (needsRoot(c.kind)) s += " root " + std::to_string(c.root);
  return s;
}

std::string describe(const BenchCase &c) {
  return caseName(c) + " on " + std::to_string(c.ranks) + " ranks";
}

}  // namespace collplan::measure
