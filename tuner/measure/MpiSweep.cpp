// Starts the collplan-mpi-baseline helper under mpirun and reads its per-size times.
#include "tuner/measure/MpiSweep.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace collplan::measure {

std::string shellQuote(const std::string &s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

void checkMpiSweep(const BenchCase &c, const MpiSweepCommand &command) {
  if (c.dtype == DType::F16 || c.dtype == DType::BF16)
    throw std::invalid_argument(command.what + ": MPI has no " + std::string(toString(c.dtype)) +
                                " type; use f32, f64, i32, i64 or u8");
  if (command.helper.empty() || ::access(command.helper.c_str(), X_OK) != 0)
    throw std::invalid_argument(
        command.what + ": the MPI helper " +
        (command.helper.empty() ? std::string("collplan-mpi-baseline") : command.helper) +
        " is missing; it is built only when CMake finds MPI (install libopenmpi-dev and "
        "reconfigure)");
}

namespace {

/// `env VARS mpirun -np ranks helper ...`: one run measures every size.
std::string sweepCommandLine(const BenchCase &c, const std::vector<SizePoint> &sizes,
                             const LoopSettings &settings, const MpiSweepCommand &command) {
  std::ostringstream points;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int reps = settings.reps > 0 ? settings.reps : autoRepetitions(sizes[i].bytes);
    points << (i ? "," : "") << sizes[i].count << ":" << reps;
  }
  std::ostringstream cmd;
  if (!command.env.empty()) {
    cmd << "env";
    for (const std::string &var : command.env) cmd << " " << shellQuote(var);
    cmd << " ";
  }
  cmd << shellQuote(command.mpirun) << " -np " << c.ranks << " " << shellQuote(command.helper)
      << " --collective " << toString(c.kind) << " --dtype " << toString(c.dtype) << " --op "
      << toString(c.op) << " --root " << c.root << " --warmup " << settings.warmup
      << " --points " << points.str() << " 2>&1";
  return cmd.str();
}

}  // namespace

std::vector<double> runMpiSweep(const BenchCase &c, const std::vector<SizePoint> &sizes,
                                const LoopSettings &settings, const MpiSweepCommand &command) {
  const std::string cmd = sweepCommandLine(c, sizes, settings, command);
  // Open MPI refuses more processes than cores, and to run as root, unless told that it is
  // intended. Through its environment, not flags: MPICH's launcher (Hydra) allows both and
  // rejects Open MPI's flags.
  ::setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
  if (::geteuid() == 0) {
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  std::fflush(stdout);
  FILE *pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error(command.what + ": cannot start " + command.mpirun);
  std::string output;
  std::vector<double> times;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) {
    unsigned long long count = 0;
    double us = 0;
    if (std::sscanf(buf, "row %llu %lf", &count, &us) == 2) times.push_back(us);
    else output += buf;
  }
  const int status = ::pclose(pipe);
  if (status != 0 || times.size() != sizes.size())
    throw std::runtime_error(command.what + ": `" + cmd + "` failed (exit status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                             ", " + std::to_string(times.size()) + " of " +
                             std::to_string(sizes.size()) + " sizes measured):\n" + output);
  return times;
}

}  // namespace collplan::measure
