// Memory estimates a benchmark run is checked against before it allocates.
#pragma once

#include "tuner/measure/PlanSource.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collplan::measure {

/// Bytes one op of a built plan takes (PlanOp and its vectors: 101 B measured for ring and
/// direct allreduce on 512 ranks, rounded up for allocator overhead).
inline constexpr uint64_t kPlanBytesPerOp = 128;
/// Bytes one op takes once a rank prepared it (PreparedProgram: 110 B measured), with the
/// per-call positions Executor::run resolves for it.
inline constexpr uint64_t kPreparedBytesPerOp = 160;

/// This machine's physical memory in bytes (0 when unknown).
double physicalMemoryBytes();

/// Throws std::invalid_argument "<what> need <N> GiB, more than this machine's <M> GiB of
/// memory: <remedy>" when `bytes` exceed physicalMemoryBytes().
void requireMemory(double bytes, const std::string &what, const std::string &remedy);

/// Refuses (requireMemory) a run whose call buffers (every rank's input and output at the largest
/// size), with the plans and the ranks' prepared programs, exceed the machine's memory, before
/// any rank allocates them.
void requireRunMemory(const PlanSource &source, const BenchCase &c,
                      const std::vector<SizePoint> &sizes);

}  // namespace collplan::measure
