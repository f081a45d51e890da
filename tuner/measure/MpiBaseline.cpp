// The mpi baseline: MPI's collectives in the mpi backend's own launch, or timed by the
// collplan-mpi-baseline helper under an mpirun of its own beside a backend of host ranks.
#include "tuner/measure/Baseline.h"
#include "tuner/measure/MpiSweep.h"

#include <stdexcept>

namespace collplan::measure {
namespace {

/// The helper under `options.mpirun`, as the mpi baseline starts it.
MpiSweepCommand sweepCommand(const BaselineOptions &options) {
  MpiSweepCommand command;
  command.mpirun = options.mpirun;
  command.helper = options.mpiHelper;
  return command;
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
    else checkMpiSweep(c, sweepCommand(options));
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
      out.us = runMpiSweep(c, sizes, settings, sweepCommand(options));
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
