// Deterministic input patterns per rank and the element-wise reference for every collective.
#include "tuner/measure/CheckData.h"

#include "runtime/core/Reduce.h"

#include <algorithm>
#include <cstring>

namespace collplan::measure {
namespace {

/// A hash of (rank, element): neighbouring elements, units and ranks get unrelated values, so a
/// unit moved by any number of elements, two blocks swapped or a block from the wrong peer
/// changes the output (a periodic pattern hides a shift by its period).
uint64_t mix(int rank, size_t e) {
  uint64_t x = (uint64_t(uint32_t(rank)) << 40) ^ uint64_t(e);
  x += 0x9e3779b97f4a7c15ull;  // splitmix64's finaliser
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The value rank `rank` holds at input element `e`, as an exact integer.
int64_t inputValue(const BenchCase &c, int rank, size_t e) {
  const uint64_t h = mix(rank, e);
  if (!needsReduceOp(c.kind)) return int64_t(h % 101);
  switch (c.op) {
  case ReduceOp::Sum: return int64_t(1 + h % 4);
  case ReduceOp::Prod: return h % 3 == 0 ? 2 : 1;
  case ReduceOp::Min:
  case ReduceOp::Max: return int64_t(h % 50);
  }
  return 0;
}

/// The reduction over all ranks of their input element `e`.
int64_t reducedValue(const BenchCase &c, size_t e) {
  int64_t acc = inputValue(c, 0, e);
  for (int s = 1; s < c.ranks; ++s) {
    const int64_t v = inputValue(c, s, e);
    switch (c.op) {
    case ReduceOp::Sum: acc += v; break;
    case ReduceOp::Prod: acc *= v; break;
    case ReduceOp::Min: acc = std::min(acc, v); break;
    case ReduceOp::Max: acc = std::max(acc, v); break;
    }
  }
  return acc;
}

/// Writes `v` as one element of `dtype` (integers wrap as the runtime's integer reductions do).
void encode(DType dtype, int64_t v, void *dst) {
  switch (dtype) {
  case DType::F32: { const float f = float(v); std::memcpy(dst, &f, 4); break; }
  case DType::F64: { const double d = double(v); std::memcpy(dst, &d, 8); break; }
  case DType::F16: { const uint16_t h = floatToHalf(float(v)); std::memcpy(dst, &h, 2); break; }
  case DType::BF16: { const uint16_t h = floatToBf16(float(v)); std::memcpy(dst, &h, 2); break; }
  case DType::I32: { const int32_t i = int32_t(uint32_t(uint64_t(v))); std::memcpy(dst, &i, 4); break; }
  case DType::I64: std::memcpy(dst, &v, 8); break;
  case DType::U8: { const uint8_t u = uint8_t(uint64_t(v)); std::memcpy(dst, &u, 1); break; }
  }
}

/// The expected value of output element `k` of rank `rank`.
int64_t expectedValue(const BenchCase &c, int rank, size_t count, size_t k) {
  const size_t block = count ? k / count : 0, i = count ? k % count : 0;
  switch (c.kind) {
  case CollectiveKind::AllReduce:
  case CollectiveKind::Reduce: return reducedValue(c, k);
  case CollectiveKind::ReduceScatter: return reducedValue(c, size_t(rank) * count + k);
  case CollectiveKind::AllGather:
  case CollectiveKind::Gather: return inputValue(c, int(block), i);
  case CollectiveKind::AllToAll: return inputValue(c, int(block), size_t(rank) * count + i);
  case CollectiveKind::Broadcast: return inputValue(c, c.root, k);
  case CollectiveKind::Scatter: return inputValue(c, c.root, size_t(rank) * count + k);
  case CollectiveKind::Barrier: return 0;
  }
  return 0;
}

}  // namespace

void fillInput(const BenchCase &c, int rank, size_t count, void *in) {
  const size_t size = dtypeSize(c.dtype), n = inputBytes(c, rank, count) / size;
  auto *bytes = static_cast<unsigned char *>(in);
  for (size_t e = 0; e < n; ++e) encode(c.dtype, inputValue(c, rank, e), bytes + e * size);
}

void poisonOutput(const BenchCase &c, int rank, size_t count, void *out) {
  const size_t n = outputBytes(c, rank, count);
  if (n) std::memset(out, 0xA5, n);
}

void fillExpected(const BenchCase &c, int rank, size_t count, void *out) {
  const size_t size = dtypeSize(c.dtype), n = outputBytes(c, rank, count) / size;
  auto *bytes = static_cast<unsigned char *>(out);
  for (size_t k = 0; k < n; ++k) encode(c.dtype, expectedValue(c, rank, count, k), bytes + k * size);
}

uint64_t countWrong(const BenchCase &c, int rank, size_t count, const void *out) {
  const size_t size = dtypeSize(c.dtype), n = outputBytes(c, rank, count) / size;
  const auto *bytes = static_cast<const unsigned char *>(out);
  unsigned char want[8];
  uint64_t wrong = 0;
  for (size_t k = 0; k < n; ++k) {
    encode(c.dtype, expectedValue(c, rank, count, k), want);
    if (std::memcmp(want, bytes + k * size, size) != 0) ++wrong;
  }
  return wrong;
}

}  // namespace collplan::measure
