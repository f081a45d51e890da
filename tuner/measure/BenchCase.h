// What one benchmark measures (collective, dtype, op, root, ranks) and every size derived from it.
#pragma once

#include "runtime/core/Collective.h"
#include "runtime/exec/Executor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collplan::measure {

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

// Every size below is derived here from runtime/core's block counts, and nowhere else.

/// A call with `count` elements per block: M = message blocks (at least 1) × count × dtype
/// size, a barrier's too. The tuner's data check and the simulator's can-it-run probe call every
/// plan so.
SizePoint callPoint(const BenchCase &c, size_t count);
/// A size of a sweep: callPoint, except that a barrier's is 0 (it carries no message).
SizePoint pointOf(const BenchCase &c, size_t count);

/// The sizes actually run for the requested byte sizes: each is rounded down to a whole number of
/// elements per block (at least one), and duplicates after rounding are dropped.
std::vector<SizePoint> sizePoints(const BenchCase &c, const std::vector<uint64_t> &requestedBytes);

/// Bytes of one block of a call of `count` elements per block.
size_t blockBytes(const BenchCase &c, size_t count);
/// Input / output bytes of `rank` for a call of `count` elements per block.
size_t inputBytes(const BenchCase &c, int rank, size_t count);
size_t outputBytes(const BenchCase &c, int rank, size_t count);

/// Rank `rank`'s call of `size` on buffers `in` and `out` (sized for it).
CallBuffers callOf(const BenchCase &c, int rank, const SizePoint &size, const void *in, void *out);

/// Repetitions used when the caller asked for "auto": many for small messages, few for large.
int autoRepetitions(uint64_t bytes);

/// "allreduce f32 sum" / "broadcast f32 root 0": a tuning table's key.
std::string caseName(const BenchCase &c);
/// "allreduce f32 sum on 4 ranks", for headers and errors.
std::string describe(const BenchCase &c);

}  // namespace collplan::measure
