// Element-wise reductions (sum, prod, min, max) over every dtype: vectorised n-ary folds.
#pragma once

#include "runtime/core/Collective.h"

#include <cstddef>
#include <cstdint>

namespace collplan {

/// Writes, for every i < count and every destination k,
///   dsts[k][i] = (((srcs[0][i] op srcs[1][i]) op srcs[2][i]) ... op srcs[numSrcs-1][i])
/// in one pass over the operands (each source read once, each destination written once). The
/// fold is strictly left to right, so two ranks that pass operands in the same order get
/// bitwise-identical results. f16 and bf16 are converted to f32, combined and rounded back to
/// nearest-even after *every* binary step, so the n-ary fold equals a chain of binary reductions
/// bit for bit. Signed integers wrap (two's complement) instead of overflowing.
///
/// With numSrcs == 1 this is a copy to every destination. A destination may be identical to any
/// source (in-place); partially overlapping ranges are not supported. numSrcs must be >= 1.
void reduceInto(DType dtype, ReduceOp op, void *const *dsts, size_t numDsts,
                const void *const *srcs, size_t numSrcs, size_t count);

/// dst[i] = a[i] op b[i]: the binary step (dst may equal a or b).
void reduceBinary(DType dtype, ReduceOp op, void *dst, const void *a, const void *b, size_t count);

/// IEEE binary16 / bfloat16 conversions; float -> 16-bit rounds to nearest-even, NaN stays NaN.
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t h);
uint16_t floatToBf16(float f);

}  // namespace collplan
