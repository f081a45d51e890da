// The measurement loop one rank runs on any backend's RankSession: check, warm up, time, per size.
#pragma once

#include "runtime/backends/Backend.h"
#include "runtime/exec/RankSession.h"
#include "tuner/bench/BenchCase.h"
#include "tuner/bench/PlanSource.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collplan::bench {

/// How each size is measured.
struct LoopSettings {
  int warmup = 3;     ///< untimed calls before the timed ones
  int reps = 0;       ///< timed calls; 0: autoRepetitions(bytes)
  bool check = true;  ///< one untimed call on poisoned output, compared with the host reference
  /// Call buffers from Transport::allocateShared where the backend has it (cpu-shm: regions
  /// peers read in place, what collplan_mem_alloc hands applications), else the heap.
  bool sharedBuffers = true;
};

/// What one rank saw: per size, the seconds of each timed call and its #wrong (0 when unchecked).
struct RankTimes {
  std::vector<std::vector<double>> seconds;
  std::vector<uint64_t> wrong;
};

/// Called by rank 0 before each size (index into the sizes), for progress lines.
using ProgressFn = std::function<void(size_t index, const SizePoint &size)>;

/// Runs every size on this rank: [poison output, barrier, one call, count wrong], `warmup` calls,
/// then `reps` times {barrier (the runtime's dissemination plan); time one call}. Every rank of
/// the job must call this with the same arguments. Throws RuntimeError on a transport failure
/// (a peer's timeout) and PlanError/RuntimeError for a plan this rank cannot run.
RankTimes runRankLoop(RankSession &session, const PlanSource &source, const BenchCase &c,
                      const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                      const ProgressFn &progress = {});

/// The same loop with the backend's own collective in place of the plans (a baseline timed the
/// same way; unchecked: it is the reference).
RankTimes runNativeRankLoop(RankSession &session, const NativeCollectives &native,
                            const BenchCase &c, const std::vector<SizePoint> &sizes,
                            const LoopSettings &settings);

/// A rank's times as bytes (what Backend::launch carries back from a rank) and back.
std::string encodeRankTimes(const RankTimes &times);
RankTimes decodeRankTimes(const std::string &bytes, size_t sizes);

/// Per size, the median over repetitions of the slowest rank's time, in µs; and #wrong summed
/// over ranks.
struct SizeResult {
  double timeUs = 0;
  uint64_t wrong = 0;
  /// The slowest rank's time of each repetition, in µs, sorted (for p99 and for pooling the
  /// repetitions of several runs, as the tuner does).
  std::vector<double> samplesUs;
};
std::vector<SizeResult> combineRanks(const std::vector<RankTimes> &ranks);

}  // namespace collplan::bench
