// What one benchmark measures (collective, dtype, op, root, ranks) and the per-size call shape.
#pragma once

#include "runtime/core/Collective.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collplan::bench {

/// The collective call being measured; every size of a sweep uses the same case.
struct BenchCase {
  CollectiveKind kind = CollectiveKind::AllReduce;
  DType dtype = DType::F32;
  ReduceOp op = ReduceOp::Sum;  ///< used by reducing collectives only
  int root = 0;                 ///< used by rooted collectives only
  int ranks = 2;
};

/// One size of a sweep, in nccl-tests terms: `bytes` is the message M (what bundle buckets are
/// keyed on) and `elements` = M / dtype size; `count` is what each rank passes to the call (per
/// rank block for allgather, reduce_scatter, alltoall, gather and scatter).
struct SizePoint {
  uint64_t bytes = 0;
  uint64_t elements = 0;
  size_t count = 0;
};

/// The sizes actually run for the requested byte sizes: each is rounded down to a whole number of
/// elements per block (at least one), and duplicates after rounding are dropped.
std::vector<SizePoint> sizePoints(const BenchCase &c, const std::vector<uint64_t> &requestedBytes);

/// Repetitions used when the caller asked for "auto": many for small messages, few for large.
int autoRepetitions(uint64_t bytes);

/// "allreduce f32 sum" / "broadcast f32 root 0", for headers and errors.
std::string describe(const BenchCase &c);

}  // namespace collplan::bench
