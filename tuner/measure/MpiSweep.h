// MPI's own collectives timed by the collplan-mpi-baseline helper under an mpirun of its own:
// what the mpi baseline and the tuning of MPI libraries' algorithms (tuner/mpilib) measure.
#pragma once

#include "tuner/measure/BenchCase.h"
#include "tuner/measure/Runner.h"

#include <string>
#include <vector>

namespace collplan::measure {

/// How to start the helper: `env VARS mpirun -np N helper ...`.
struct MpiSweepCommand {
  std::string mpirun = "mpirun";
  std::string helper;             ///< collplan-mpi-baseline built against that mpirun's MPI
  std::vector<std::string> env;   ///< "NAME=VALUE" for every process (a library's rules file)
  std::string what = "--baseline mpi";  ///< what errors start with
};

/// Throws std::invalid_argument when the helper cannot time `c`: a dtype MPI lacks (f16, bf16)
/// or a missing helper program.
void checkMpiSweep(const BenchCase &c, const MpiSweepCommand &command);

/// Runs the helper once for every size of `c` (warmed up and repeated as plans are: barrier, one
/// timed call) and returns, per size, the median over repetitions of the slowest rank's time
/// (µs). Throws std::runtime_error with mpirun's output when it fails.
std::vector<double> runMpiSweep(const BenchCase &c, const std::vector<SizePoint> &sizes,
                                const LoopSettings &settings, const MpiSweepCommand &command);

/// `s` quoted for /bin/sh.
std::string shellQuote(const std::string &s);

}  // namespace collplan::measure
