// UnitLayout: where a plan's unit ranges lie in bytes for one call's count and dtype.
#pragma once

#include "runtime/core/Collective.h"
#include "runtime/plan/Plan.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace collplan {

/// A byte range [offset, offset + bytes) inside one buffer.
struct ByteRange {
  size_t offset = 0;
  size_t bytes = 0;
  bool operator==(const ByteRange &o) const { return offset == o.offset && bytes == o.bytes; }
};

/// The message buffer M has messageBlocks(kind, ranks) blocks of `count` elements (`count` is the
/// per-rank count for allgather, reduce_scatter, alltoall, gather and scatter, as in NCCL/MPI;
/// the whole count otherwise). Each block is cut into U = units / blocks units; when `count` is
/// not divisible by U, the first count % U units of each block hold one extra element. So unit u
/// of any buffer (in, out or tmp) starts at element
///     (u / U) * count + (u % U) * (count / U) + min(u % U, count % U)
/// and all ranks agree. Units of a different phase (u % U) may differ by one element, which is
/// why validatePlan requires one phase per op and per transfer.
///
/// Closed form, O(1) per query, no allocation: build one per call, query it per op.
class UnitLayout {
public:
  UnitLayout() = default;
  /// Throws std::invalid_argument when `units` is not a positive multiple of messageBlocks (any
  /// `units` is accepted for a barrier, whose buffers are empty).
  UnitLayout(CollectiveKind kind, int ranks, uint32_t units, size_t count, DType dtype);
  UnitLayout(const Plan &plan, size_t count, DType dtype)
      : UnitLayout(plan.collective, plan.ranks, plan.units, count, dtype) {}

  uint32_t unitsPerBlock() const { return unitsPerBlock_; }
  size_t blockElements() const { return count_; }
  size_t elementSize() const { return elementSize_; }

  /// Elements in the buffer before unit `unit` (unit may equal the buffer's size: its end).
  size_t elementOffset(uint64_t unit) const {
    if (unitsPerBlock_ == 0) return 0;
    const uint64_t block = unit / unitsPerBlock_, phase = unit % unitsPerBlock_;
    return size_t(block * count_ + phase * base_ + std::min<uint64_t>(phase, extra_));
  }
  /// Elements in units [offset, offset + length).
  size_t elements(uint32_t offset, uint32_t length) const {
    return elementOffset(uint64_t(offset) + length) - elementOffset(offset);
  }
  /// Bytes of units [offset, offset + length) of a buffer.
  ByteRange byteRange(uint32_t offset, uint32_t length) const {
    const size_t begin = elementOffset(offset);
    return {begin * elementSize_, (elementOffset(uint64_t(offset) + length) - begin) * elementSize_};
  }
  ByteRange byteRange(const BufRef &ref) const { return byteRange(ref.offset, ref.length); }
  /// Bytes of a buffer of `units` units (in/out: bufferUnits(...); tmp: scratchUnits).
  size_t bufferBytes(uint32_t units) const { return elementOffset(units) * elementSize_; }

private:
  uint32_t unitsPerBlock_ = 0;
  size_t count_ = 0;
  size_t base_ = 0;     ///< count / unitsPerBlock
  uint32_t extra_ = 0;  ///< count % unitsPerBlock: units holding base + 1 elements
  size_t elementSize_ = 0;
};

}  // namespace collplan
