// The element types and reduction ops of every dtype, shared by the CPU folds (Reduce.cpp) and
// the CUDA kernels, so both compute the same bits.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#ifdef __CUDACC__
#define COLLPLAN_HD __host__ __device__
#else
#define COLLPLAN_HD
#endif

namespace collplan::reduce_ops {

COLLPLAN_HD inline uint32_t bitsOf(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
COLLPLAN_HD inline float floatOf(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// Branch-free conversions (after F. Giesen's half <-> float routines) so loops over them vectorise.
COLLPLAN_HD inline float halfToFloatFast(uint16_t h) {
  const uint32_t hu = h;
  uint32_t o = (hu & 0x7fffu) << 13;     // exponent and mantissa in float position
  const uint32_t exp = o & 0x0f800000u;  // the half's exponent bits
  o += (127u - 15u) << 23;               // rebias
  const uint32_t infNan = o + ((128u - 16u) << 23);
  const uint32_t denorm = bitsOf(floatOf(o + (1u << 23)) - floatOf(113u << 23));
  o = exp == 0x0f800000u ? infNan : (exp == 0 ? denorm : o);
  return floatOf(o | ((hu & 0x8000u) << 16));
}

COLLPLAN_HD inline uint16_t floatToHalfFast(float f) {
  uint32_t u = bitsOf(f);
  const uint32_t sign = u & 0x80000000u;
  u ^= sign;
  const uint32_t infNan = u > 0x7f800000u ? 0x7e00u : 0x7c00u;
  constexpr uint32_t kDenormMagic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
  const uint32_t subnormal = bitsOf(floatOf(u) + floatOf(kDenormMagic)) - kDenormMagic;
  const uint32_t mantOdd = (u >> 13) & 1u;
  const uint32_t normal = (u - (112u << 23) + 0xfffu + mantOdd) >> 13;
  const uint32_t o = u >= (143u << 23) ? infNan : (u < (113u << 23) ? subnormal : normal);
  return uint16_t(o | (sign >> 16));
}

COLLPLAN_HD inline float bf16ToFloatFast(uint16_t h) { return floatOf(uint32_t(h) << 16); }

COLLPLAN_HD inline uint16_t floatToBf16Fast(float f) {
  const uint32_t u = bitsOf(f);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t quietNan = (u >> 16) | 0x40u;
  return uint16_t((u & 0x7fffffffu) > 0x7f800000u ? quietNan : rounded);
}

/// How a dtype is stored and combined: most types combine in their own type; f16/bf16 in f32,
/// rounded back after every step.
template <typename S>
struct Plain {
  using Storage = S;
  using Compute = S;
  COLLPLAN_HD static Compute load(S v) { return v; }
  COLLPLAN_HD static S store(Compute c) { return c; }
  COLLPLAN_HD static Compute round(Compute c) { return c; }
};
struct Half {
  using Storage = uint16_t;
  using Compute = float;
  COLLPLAN_HD static float load(uint16_t v) { return halfToFloatFast(v); }
  COLLPLAN_HD static uint16_t store(float c) { return floatToHalfFast(c); }
  COLLPLAN_HD static float round(float c) { return halfToFloatFast(floatToHalfFast(c)); }
};
struct BFloat {
  using Storage = uint16_t;
  using Compute = float;
  COLLPLAN_HD static float load(uint16_t v) { return bf16ToFloatFast(v); }
  COLLPLAN_HD static uint16_t store(float c) { return floatToBf16Fast(c); }
  COLLPLAN_HD static float round(float c) { return bf16ToFloatFast(floatToBf16Fast(c)); }
};

/// The type arithmetic happens in: unsigned for integers, so signed overflow wraps (no UB).
template <typename T, bool = std::is_integral_v<T>>
struct WrappingOf { using type = T; };
template <typename T>
struct WrappingOf<T, true> { using type = std::make_unsigned_t<T>; };
template <typename T>
using Wrapping = typename WrappingOf<T>::type;

struct Sum {
  template <typename T> COLLPLAN_HD static T apply(T a, T b) {
    return T(Wrapping<T>(a) + Wrapping<T>(b));
  }
};
struct Prod {
  template <typename T> COLLPLAN_HD static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T> && sizeof(T) < sizeof(unsigned))
      return T(unsigned(a) * unsigned(b));  // avoid int promotion overflow for u8
    else
      return T(Wrapping<T>(a) * Wrapping<T>(b));
  }
};
struct Min {
  template <typename T> COLLPLAN_HD static T apply(T a, T b) { return b < a ? b : a; }
};
struct Max {
  template <typename T> COLLPLAN_HD static T apply(T a, T b) { return a < b ? b : a; }
};

}  // namespace collplan::reduce_ops
