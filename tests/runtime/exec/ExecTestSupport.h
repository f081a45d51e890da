// Test support: deterministic inputs, a scalar reference and a checker for every collective.
#pragma once

#include "collplan.hpp"
#include "runtime/backends/Backend.h"
#include "runtime/core/Collective.h"
#include "runtime/plan/Plan.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collplan::test {

/// How the test lays out buffers for a call.
enum class Placement {
  OutOfPlace,  ///< separate send and recv buffers
  InPlace,     ///< the NCCL/MPI in-place convention of the collective (canonical offsets)
  SameStart,   ///< send == recv start even where that is not canonical (forces input staging)
};

struct CollCase {
  CollectiveKind kind = CollectiveKind::AllReduce;
  DType dtype = DType::F32;
  ReduceOp op = ReduceOp::Sum;
  size_t count = 0;
  Placement placement = Placement::OutOfPlace;
  int root = 0;
  /// Buffers from Comm::alloc (collplan_mem_alloc: shared memory on cpu-shm) instead of the heap.
  bool sharedBuffers = false;
  std::string describe(int ranks) const;
};

/// Element `index` of rank `rank`'s input, chosen so that every fold is exact in every dtype
/// (small integers, powers of two for products), hence independent of the reduction order.
double inputValue(const CollCase &c, int rank, size_t index);

/// Encodes / decodes one element of `dtype` (exact for the values inputValue produces).
void encode(DType dtype, double value, void *dst);
double decode(DType dtype, const void *src);

/// Runs `c` on `comm` and compares the rank's output byte for byte with the reference.
/// Returns "" on success, else a description of the first mismatch. `output` receives the bytes
/// of the rank's result (for cross-rank comparisons).
std::string runAndCheck(Comm &comm, const CollCase &c, std::vector<uint8_t> *output = nullptr);

/// Every case of one collective for `ranks` ranks: all dtypes, ops (where reducing), the odd
/// counts (0, 1, < ranks, not divisible by the units), every placement and two roots.
std::vector<CollCase> sweepCases(CollectiveKind kind, int ranks, bool allOps = true);

/// A cpu-shm job name unique to this process and moment, starting with `tag`.
std::string uniqueJob(const std::string &tag);

/// Names under /dev/shm that belong to cpu-shm job `job` (its control segment and the rest).
std::vector<std::string> shmLeftovers(const std::string &job);

/// Forks `ranks` processes that each run `body(rank)` and _exit with its result (an exception
/// is printed and exits 2). Returns "" when every process exits 0, else which failed; kills
/// them all and says so after `timeoutSeconds`.
std::string runInProcesses(int ranks, const std::function<int(int rank)> &body,
                           int timeoutSeconds = 120);

/// Runs a one-element f32 sum allreduce (rank r gives r + 1) on each rank of a launch of
/// `backend`, through the built-in plan; each rank reports "rank:sum", in rank order.
/// A bundle bucket for messages of `minBytes`..`maxBytes` served by `plan`.
Bucket bucketOf(uint64_t minBytes, uint64_t maxBytes, Plan plan);

std::vector<std::string> launchedAllReduceReports(const Backend &backend, int ranks);

}  // namespace collplan::test
