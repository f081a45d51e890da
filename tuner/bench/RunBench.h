// runBench: a benchmark on any registered backend: its ranks launched, or its plans simulated.
#pragma once

#include "runtime/backends/Backend.h"
#include "runtime/topology/Topology.h"
#include "tuner/bench/RankLoop.h"

#include <vector>

namespace collplan::bench {

/// Every size of the case on `backend`: the rank loop on every rank it launches (Backend::launch;
/// for a backend of one rank per process, call it before this process starts any thread), the
/// device loop on a job of a backend that runs on devices (Backend::openDeviceJob), or, for a
/// simulated backend, each size's plan timed on `topology` (#wrong is not checked there).
/// Throws std::invalid_argument when a simulated backend gets no topology, std::runtime_error /
/// RuntimeError / PlanError with the failing rank's message, SimError for a plan the simulator
/// cannot run on the topology.
std::vector<SizeResult> runBench(const Backend &backend, const PlanSource &source,
                                 const BenchCase &c, const std::vector<SizePoint> &sizes,
                                 const LoopSettings &settings, const ProgressFn &progress,
                                 const Topology *topology = nullptr);

/// The backend's own collectives (Backend::nativeCollectives, which must exist) timed by the
/// same rank loop in a launch of their own: the baseline of the same job. Throws as runBench.
std::vector<SizeResult> runNativeBench(const Backend &backend, const BenchCase &c,
                                       const std::vector<SizePoint> &sizes,
                                       const LoopSettings &settings);

}  // namespace collplan::bench
