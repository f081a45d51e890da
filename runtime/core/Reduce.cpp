// Vectorisable reduction kernels: one template per (dtype, op), chosen once per call by table.
#include "runtime/core/Reduce.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace collplan {
namespace {

inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Branch-free conversions (after F. Giesen's half <-> float routines) so loops over them vectorise.
inline float halfToFloatFast(uint16_t h) {
  const uint32_t hu = h;
  uint32_t o = (hu & 0x7fffu) << 13;     // exponent and mantissa in float position
  const uint32_t exp = o & 0x0f800000u;  // the half's exponent bits
  o += (127u - 15u) << 23;               // rebias
  const uint32_t infNan = o + ((128u - 16u) << 23);
  const uint32_t denorm = bitsOf(floatOf(o + (1u << 23)) - floatOf(113u << 23));
  o = exp == 0x0f800000u ? infNan : (exp == 0 ? denorm : o);
  return floatOf(o | ((hu & 0x8000u) << 16));
}

inline uint16_t floatToHalfFast(float f) {
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

inline float bf16ToFloatFast(uint16_t h) { return floatOf(uint32_t(h) << 16); }

inline uint16_t floatToBf16Fast(float f) {
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
  static Compute load(S v) { return v; }
  static S store(Compute c) { return c; }
  static Compute round(Compute c) { return c; }
};
struct Half {
  using Storage = uint16_t;
  using Compute = float;
  static float load(uint16_t v) { return halfToFloatFast(v); }
  static uint16_t store(float c) { return floatToHalfFast(c); }
  static float round(float c) { return halfToFloatFast(floatToHalfFast(c)); }
};
struct BFloat {
  using Storage = uint16_t;
  using Compute = float;
  static float load(uint16_t v) { return bf16ToFloatFast(v); }
  static uint16_t store(float c) { return floatToBf16Fast(c); }
  static float round(float c) { return bf16ToFloatFast(floatToBf16Fast(c)); }
};

/// The type arithmetic happens in: unsigned for integers, so signed overflow wraps (no UB).
template <typename T, bool = std::is_integral_v<T>>
struct WrappingOf { using type = T; };
template <typename T>
struct WrappingOf<T, true> { using type = std::make_unsigned_t<T>; };
template <typename T>
using Wrapping = typename WrappingOf<T>::type;

struct Sum {
  template <typename T> static T apply(T a, T b) { return T(Wrapping<T>(a) + Wrapping<T>(b)); }
};
struct Prod {
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T> && sizeof(T) < sizeof(unsigned))
      return T(unsigned(a) * unsigned(b));  // avoid int promotion overflow for u8
    else
      return T(Wrapping<T>(a) * Wrapping<T>(b));
  }
};
struct Min {
  template <typename T> static T apply(T a, T b) { return b < a ? b : a; }
};
struct Max {
  template <typename T> static T apply(T a, T b) { return a < b ? b : a; }
};

template <typename Tr, typename Op>
void binaryKernel(void *dst, const void *a, const void *b, size_t count) {
  using S = typename Tr::Storage;
  S *d = static_cast<S *>(dst);
  const S *x = static_cast<const S *>(a);
  const S *y = static_cast<const S *>(b);
  for (size_t i = 0; i < count; ++i) d[i] = Tr::store(Op::apply(Tr::load(x[i]), Tr::load(y[i])));
}

/// Elements per tile of the n-ary fold: the accumulator stays in L1 while every operand streams
/// through once.
constexpr size_t kTile = 512;

template <typename Tr, typename Op>
void naryKernel(void *const *dsts, size_t numDsts, const void *const *srcs, size_t numSrcs,
                size_t count) {
  using S = typename Tr::Storage;
  using C = typename Tr::Compute;
  if (numSrcs == 2 && numDsts == 1) return binaryKernel<Tr, Op>(dsts[0], srcs[0], srcs[1], count);
  alignas(64) C acc[kTile];
  for (size_t base = 0; base < count; base += kTile) {
    const size_t len = std::min(kTile, count - base);
    const S *s0 = static_cast<const S *>(srcs[0]) + base;
    for (size_t i = 0; i < len; ++i) acc[i] = Tr::load(s0[i]);
    for (size_t k = 1; k < numSrcs; ++k) {
      const S *sk = static_cast<const S *>(srcs[k]) + base;
      for (size_t i = 0; i < len; ++i) acc[i] = Tr::round(Op::apply(acc[i], Tr::load(sk[i])));
    }
    for (size_t k = 0; k < numDsts; ++k) {
      S *dk = static_cast<S *>(dsts[k]) + base;
      for (size_t i = 0; i < len; ++i) dk[i] = Tr::store(acc[i]);
    }
  }
}

using NaryFn = void (*)(void *const *, size_t, const void *const *, size_t, size_t);
using BinaryFn = void (*)(void *, const void *, const void *, size_t);

template <typename Tr>
struct Row {
  NaryFn nary[4] = {naryKernel<Tr, Sum>, naryKernel<Tr, Prod>, naryKernel<Tr, Min>,
                    naryKernel<Tr, Max>};
  BinaryFn binary[4] = {binaryKernel<Tr, Sum>, binaryKernel<Tr, Prod>, binaryKernel<Tr, Min>,
                        binaryKernel<Tr, Max>};
};

struct KernelTable {
  NaryFn nary[kNumDTypes][4];
  BinaryFn binary[kNumDTypes][4];
  template <typename Tr>
  void set(DType dtype) {
    Row<Tr> row;
    std::copy(row.nary, row.nary + 4, nary[int(dtype)]);
    std::copy(row.binary, row.binary + 4, binary[int(dtype)]);
  }
  KernelTable() {
    set<Plain<float>>(DType::F32);
    set<Plain<double>>(DType::F64);
    set<Half>(DType::F16);
    set<BFloat>(DType::BF16);
    set<Plain<int32_t>>(DType::I32);
    set<Plain<int64_t>>(DType::I64);
    set<Plain<uint8_t>>(DType::U8);
  }
};

const KernelTable &kernels() {
  static const KernelTable table;
  return table;
}

}  // namespace

void reduceInto(DType dtype, ReduceOp op, void *const *dsts, size_t numDsts,
                const void *const *srcs, size_t numSrcs, size_t count) {
  if (count == 0 || numDsts == 0 || numSrcs == 0) return;
  if (numSrcs == 1) {
    const size_t bytes = count * dtypeSize(dtype);
    for (size_t k = 0; k < numDsts; ++k)
      if (dsts[k] != srcs[0]) std::memmove(dsts[k], srcs[0], bytes);
    return;
  }
  kernels().nary[int(dtype)][int(op)](dsts, numDsts, srcs, numSrcs, count);
}

void reduceBinary(DType dtype, ReduceOp op, void *dst, const void *a, const void *b,
                  size_t count) {
  if (count) kernels().binary[int(dtype)][int(op)](dst, a, b, count);
}

float halfToFloat(uint16_t h) { return halfToFloatFast(h); }
uint16_t floatToHalf(float f) { return floatToHalfFast(f); }
float bf16ToFloat(uint16_t h) { return bf16ToFloatFast(h); }
uint16_t floatToBf16(float f) { return floatToBf16Fast(f); }

}  // namespace collplan
