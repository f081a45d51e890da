// Vectorisable reduction kernels: one template per (dtype, op), chosen once per call by table.
#include "runtime/core/Reduce.h"

#include "runtime/core/ReduceOps.h"

#include <algorithm>
#include <cstring>

namespace collplan {
namespace {

using namespace reduce_ops;

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
