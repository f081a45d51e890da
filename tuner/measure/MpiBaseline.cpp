// The mpi baseline: MPI's collectives in the mpi backend's own launch, or timed by the
// collplan-mpi-baseline helper under an mpirun of its own beside a backend of host ranks.
#include "tuner/measure/Baseline.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace collplan::measure {
namespace {

std::string shellQuote(const std::string &s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

/// Throws std::invalid_argument when the helper cannot time `c`: a dtype MPI lacks (f16, bf16)
/// or a missing helper.
void checkHelper(const BenchCase &c, const BaselineOptions &options) {
  if (c.dtype == DType::F16 || c.dtype == DType::BF16)
    throw std::invalid_argument("--baseline mpi: MPI has no " + std::string(toString(c.dtype)) +
                                " type; use f32, f64, i32, i64 or u8");
  if (options.mpiHelper.empty() || ::access(options.mpiHelper.c_str(), X_OK) != 0)
    throw std::invalid_argument(
        "--baseline mpi: the MPI helper " +
        (options.mpiHelper.empty() ? std::string("collplan-mpi-baseline") : options.mpiHelper) +
        " is missing; it is built only when CMake finds MPI (install libopenmpi-dev and "
        "reconfigure)");
}

/// `mpirun -np ranks helper ...`: one run measures every size, warmed up and repeated as the
/// plans are (barrier, one timed call).
std::string helperCommand(const BenchCase &c, const std::vector<SizePoint> &sizes,
                          const LoopSettings &settings, const BaselineOptions &options) {
  std::ostringstream points;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int reps = settings.reps > 0 ? settings.reps : autoRepetitions(sizes[i].bytes);
    points << (i ? "," : "") << sizes[i].count << ":" << reps;
  }
  std::ostringstream cmd;
  cmd << shellQuote(options.mpirun) << " -np " << c.ranks << " " << shellQuote(options.mpiHelper)
      << " --collective " << toString(c.kind) << " --dtype " << toString(c.dtype) << " --op "
      << toString(c.op) << " --root " << c.root << " --warmup " << settings.warmup
      << " --points " << points.str() << " 2>&1";
  return cmd.str();
}

/// Runs the helper and returns, per size, the median over repetitions of the slowest rank's
/// time (µs). Throws std::runtime_error with mpirun's output when it fails.
std::vector<double> runHelper(const BenchCase &c, const std::vector<SizePoint> &sizes,
                              const LoopSettings &settings, const BaselineOptions &options) {
  const std::string cmd = helperCommand(c, sizes, settings, options);
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
  if (!pipe) throw std::runtime_error("--baseline mpi: cannot start " + options.mpirun);
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
    throw std::runtime_error("--baseline mpi: `" + cmd + "` failed (exit status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                             ", " + std::to_string(times.size()) + " of " +
                             std::to_string(sizes.size()) + " sizes measured):\n" + output);
  return times;
}

class MpiBaseline final : public Baseline {
public:
  std::string_view name() const override { return "mpi"; }

  void checkBackend(const Backend &backend) const override {
    const std::string flag = "--backend " + std::string(backend.name());
    switch (backend.kind()) {
    case BackendKind::Simulated:
      throw std::invalid_argument("--baseline mpi runs real processes: use it with a cpu "
                                  "backend, not " + std::string(backend.name()));
    case BackendKind::Devices:
      throw std::invalid_argument("--baseline mpi times MPI on host processes, not the devices "
                                  "of " + flag + ": use --baseline nccl there");
    case BackendKind::HostRanks:
      if (backend.startedByItsLauncher() && !backend.nativeCollectives())
        throw std::invalid_argument("--baseline mpi starts an mpirun of its own, which cannot "
                                    "run beside the processes of " + flag +
                                    ": measure the baseline in a run with a cpu backend");
    }
  }

  void checkCase(const Runner &runner, const BenchCase &c,
                 const BaselineOptions &options) const override {
    if (inLaunch(runner)) asBaselineError(*this, [&] { runner.checkNative(c); });
    else checkHelper(c, options);
  }

  BaselineTimes run(const Runner &runner, const BenchCase &c, const std::vector<SizePoint> &sizes,
                    const LoopSettings &settings, const BaselineOptions &options,
                    const NoteFn &note) const override {
    BaselineTimes out;
    if (inLaunch(runner)) {
      const std::string call = runner.backend().nativeCollectives()->functionName(c.kind);
      if (note) note("running " + call + "...");
      asBaselineError(*this, [&] { out.us = medians(runner.runNative(c, sizes, settings)); });
      out.label = call + " (the same launch)";
    } else {
      const std::string call(mpiFunctionName(c.kind));
      if (note) note("running " + call + " under mpirun...");
      out.us = runHelper(c, sizes, settings, options);
      out.label = call + " (mpirun -np " + std::to_string(c.ranks) + ")";
    }
    return out;
  }

private:
  /// MPI's collectives run in the backend's own launch, on the job's processes (mpi); elsewhere
  /// in a separate mpirun of the helper.
  static bool inLaunch(const Runner &runner) { return runner.backend().nativeCollectives(); }
};

}  // namespace

const Baseline &mpiBaseline() {
  static const MpiBaseline baseline;
  return baseline;
}

}  // namespace collplan::measure
