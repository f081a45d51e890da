// The MPI baseline: MPI's own collective timed by the collplan-mpi-baseline helper under mpirun.
#pragma once

#include "tuner/bench/RankLoop.h"

#include <string>
#include <vector>

namespace collplan::bench {

struct MpiBaselineOptions {
  /// The helper program (bench/runtime/MpiCollectiveSweep.c, built as collplan-mpi-baseline).
  std::string helper;
  std::string mpirun = "mpirun";
};

/// Throws std::invalid_argument when the baseline cannot run: a dtype MPI lacks (f16, bf16) or a
/// missing helper. Call it before measuring, so a bad request fails at once.
void checkMpiBaseline(const BenchCase &c, const MpiBaselineOptions &options);

/// Runs `mpirun -np c.ranks helper ...` (oversubscription allowed) once for every size and
/// returns, per size, the median over repetitions of the slowest rank's time (µs), measured the
/// same way as runRankLoop (barrier, one timed call; same warm-up and repetitions). Throws
/// std::runtime_error with mpirun's output when it fails, and std::invalid_argument for a
/// dtype MPI lacks (f16, bf16).
std::vector<double> runMpiBaseline(const BenchCase &c, const std::vector<SizePoint> &sizes,
                                   const LoopSettings &settings, const MpiBaselineOptions &options);

}  // namespace collplan::bench
