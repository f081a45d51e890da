// Reduction kernels against a scalar per-step reference, f16/bf16 conversions, aliasing.
#include "runtime/core/Reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace collplan;

namespace {

/// Scalar reference of one binary step for dtype `d`, written independently of the kernels'
/// templates (but with the same documented semantics).
void scalarStep(DType d, ReduceOp op, const uint8_t *a, const uint8_t *b, uint8_t *out) {
  auto f = [op](auto x, auto y) -> decltype(x) {
    switch (op) {
    case ReduceOp::Sum: return x + y;
    case ReduceOp::Prod: return x * y;
    case ReduceOp::Min: return y < x ? y : x;
    case ReduceOp::Max: return x < y ? y : x;
    }
    return x;
  };
  switch (d) {
  case DType::F32: { float x, y; std::memcpy(&x, a, 4); std::memcpy(&y, b, 4); float r = f(x, y); std::memcpy(out, &r, 4); break; }
  case DType::F64: { double x, y; std::memcpy(&x, a, 8); std::memcpy(&y, b, 8); double r = f(x, y); std::memcpy(out, &r, 8); break; }
  case DType::F16: case DType::BF16: {
    uint16_t x, y;
    std::memcpy(&x, a, 2);
    std::memcpy(&y, b, 2);
    const bool half = d == DType::F16;
    const float fx = half ? halfToFloat(x) : bf16ToFloat(x), fy = half ? halfToFloat(y) : bf16ToFloat(y);
    const float r = f(fx, fy);
    const uint16_t h = half ? floatToHalf(r) : floatToBf16(r);
    std::memcpy(out, &h, 2);
    break;
  }
  case DType::I32: { uint32_t x, y; std::memcpy(&x, a, 4); std::memcpy(&y, b, 4);
    int32_t r = (op == ReduceOp::Min || op == ReduceOp::Max) ? f(int32_t(x), int32_t(y)) : int32_t(f(x, y));
    std::memcpy(out, &r, 4); break; }
  case DType::I64: { uint64_t x, y; std::memcpy(&x, a, 8); std::memcpy(&y, b, 8);
    int64_t r = (op == ReduceOp::Min || op == ReduceOp::Max) ? f(int64_t(x), int64_t(y)) : int64_t(f(x, y));
    std::memcpy(out, &r, 8); break; }
  case DType::U8: { uint8_t r = uint8_t(f(unsigned(*a), unsigned(*b))); *out = r; break; }
  }
}

std::vector<uint8_t> randomBuffer(DType d, size_t count, std::mt19937 &rng) {
  const size_t es = dtypeSize(d);
  std::vector<uint8_t> buf(count * es);
  std::uniform_real_distribution<float> real(-3.0f, 3.0f);
  std::uniform_int_distribution<int64_t> integer(-1000000000000LL, 1000000000000LL);
  for (size_t i = 0; i < count; ++i) {
    uint8_t *p = &buf[i * es];
    const float v = real(rng);
    switch (d) {
    case DType::F32: std::memcpy(p, &v, 4); break;
    case DType::F64: { double x = double(v) * 1.0000001; std::memcpy(p, &x, 8); break; }
    case DType::F16: { uint16_t h = floatToHalf(v); std::memcpy(p, &h, 2); break; }
    case DType::BF16: { uint16_t h = floatToBf16(v); std::memcpy(p, &h, 2); break; }
    case DType::I32: { int32_t x = int32_t(integer(rng)); std::memcpy(p, &x, 4); break; }
    case DType::I64: { int64_t x = integer(rng) * 4093; std::memcpy(p, &x, 8); break; }
    case DType::U8: *p = uint8_t(integer(rng)); break;
    }
  }
  return buf;
}

class ExecReduce : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(ExecReduce, NaryFoldEqualsChainOfBinarySteps) {
  const DType d = DType(std::get<0>(GetParam()));
  const ReduceOp op = ReduceOp(std::get<1>(GetParam()));
  const size_t es = dtypeSize(d);
  std::mt19937 rng(42);
  for (size_t count : {size_t(1), size_t(7), size_t(511), size_t(512), size_t(1100)}) {
    for (size_t numSrcs = 1; numSrcs <= 5; ++numSrcs) {
      std::vector<std::vector<uint8_t>> srcs;
      std::vector<const void *> ptrs;
      for (size_t k = 0; k < numSrcs; ++k) srcs.push_back(randomBuffer(d, count, rng));
      for (auto &s : srcs) ptrs.push_back(s.data());
      // Reference: left fold, one binary step at a time.
      std::vector<uint8_t> expected = srcs[0];
      for (size_t k = 1; k < numSrcs; ++k)
        for (size_t i = 0; i < count; ++i)
          scalarStep(d, op, &expected[i * es], &srcs[k][i * es], &expected[i * es]);
      std::vector<uint8_t> out1(count * es), out2(count * es);
      void *dsts[2] = {out1.data(), out2.data()};
      reduceInto(d, op, dsts, 2, ptrs.data(), numSrcs, count);
      EXPECT_EQ(out1, expected) << toString(d) << " " << toString(op) << " n=" << numSrcs
                                << " count=" << count;
      EXPECT_EQ(out2, expected);
      // In place: the destination is the last source (read after the first pass).
      std::vector<uint8_t> last = srcs.back();
      ptrs.back() = last.data();
      void *self[1] = {last.data()};
      reduceInto(d, op, self, 1, ptrs.data(), numSrcs, count);
      EXPECT_EQ(last, expected) << "in place, " << toString(d);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypesAndOps, ExecReduce,
                         ::testing::Combine(::testing::Range(0, kNumDTypes), ::testing::Range(0, 4)));

#ifdef __FLT16_MAX__
/// The compiler's own IEEE conversion (round to nearest even) as the reference.
uint16_t referenceHalf(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
#endif

TEST(ExecReduceConversions, HalfRoundTripsEveryValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = halfToFloat(uint16_t(h));
    if (std::isnan(f)) {
      EXPECT_TRUE((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) << h;
      continue;
    }
    EXPECT_EQ(floatToHalf(f), uint16_t(h)) << h;
  }
}

TEST(ExecReduceConversions, FloatToHalfRoundsToNearestEven) {
#ifdef __FLT16_MAX__
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits(0, 0xffffffffu);
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = bits(rng);
    float f;
    std::memcpy(&f, &u, 4);
    if (std::isnan(f)) continue;
    ASSERT_EQ(floatToHalf(f), referenceHalf(f)) << f;
  }
#endif
  // Ties: 1 + 2^-11 lies halfway between 1 and the next half; it rounds to even (1).
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(1e6f), 0x7c00);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
}

TEST(ExecReduceConversions, Bf16RoundsToNearestEven) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  float tie;
  uint32_t u = 0x3f808000u;  // halfway between 0x3f80 and 0x3f81: even is 0x3f80
  std::memcpy(&tie, &u, 4);
  EXPECT_EQ(floatToBf16(tie), 0x3f80);
  u = 0x3f818000u;  // halfway between 0x3f81 and 0x3f82: even is 0x3f82
  std::memcpy(&tie, &u, 4);
  EXPECT_EQ(floatToBf16(tie), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(std::nanf("")))));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = bf16ToFloat(uint16_t(h));
    if (!std::isnan(f)) {
      EXPECT_EQ(floatToBf16(f), h);
    }
  }
}

}  // namespace
