// runMpiBaseline: builds the helper's command line, runs it under mpirun, parses its rows.
#include "tuner/bench/MpiBaseline.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace collplan::bench {
namespace {

std::string shellQuote(const std::string &s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

}  // namespace

void checkMpiBaseline(const BenchCase &c, const MpiBaselineOptions &options) {
  if (c.dtype == DType::F16 || c.dtype == DType::BF16)
    throw std::invalid_argument("--baseline mpi: MPI has no " + std::string(toString(c.dtype)) +
                                " type; use f32, f64, i32, i64 or u8");
  if (options.helper.empty() || ::access(options.helper.c_str(), X_OK) != 0)
    throw std::invalid_argument(
        "--baseline mpi: the MPI helper " +
        (options.helper.empty() ? std::string("collplan-mpi-baseline") : options.helper) +
        " is missing; it is built only when CMake finds MPI (install libopenmpi-dev and "
        "reconfigure)");
}

std::vector<double> runMpiBaseline(const BenchCase &c, const std::vector<SizePoint> &sizes,
                                   const LoopSettings &settings, const MpiBaselineOptions &options) {
  checkMpiBaseline(c, options);
  std::ostringstream points;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int reps = settings.reps > 0 ? settings.reps : autoRepetitions(sizes[i].bytes);
    points << (i ? "," : "") << sizes[i].count << ":" << reps;
  }
  std::ostringstream cmd;
  cmd << shellQuote(options.mpirun) << " -np " << c.ranks << " " << shellQuote(options.helper) << " --collective " << toString(c.kind) << " --dtype "
      << toString(c.dtype) << " --op " << toString(c.op) << " --root " << c.root << " --warmup "
      << settings.warmup << " --points " << points.str() << " 2>&1";
  // Open MPI refuses more processes than cores, and to run as root, unless told that it is
  // intended. Through its environment, not flags: MPICH's launcher (Hydra) allows both and
  // rejects Open MPI's flags.
  ::setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
  if (::geteuid() == 0) {
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  std::fflush(stdout);
  FILE *pipe = ::popen(cmd.str().c_str(), "r");
  if (!pipe) throw std::runtime_error("--baseline mpi: cannot start " + options.mpirun);
  std::string output, line;
  std::vector<double> times;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) {
    line = buf;
    unsigned long long count = 0;
    double us = 0;
    if (std::sscanf(buf, "row %llu %lf", &count, &us) == 2)
      times.push_back(us);
    else
      output += line;
  }
  const int status = ::pclose(pipe);
  if (status != 0 || times.size() != sizes.size())
    throw std::runtime_error("--baseline mpi: `" + cmd.str() + "` failed (exit status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                             ", " + std::to_string(times.size()) + " of " +
                             std::to_string(sizes.size()) + " sizes measured):\n" + output);
  return times;
}

}  // namespace collplan::bench
