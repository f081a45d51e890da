// Running a benchmark on a backend: cpu-threads (threads), cpu-shm (forked processes), sim.
#pragma once

#include "runtime/topology/Topology.h"
#include "tuner/bench/RankLoop.h"

#include <string>
#include <vector>

namespace collplan::bench {

/// The backends plan-bench and the tuner measure on.
inline constexpr const char *kBackendNames = "cpu-threads, cpu-shm, sim";
bool isKnownBackend(const std::string &name);

/// Runs the loop on c.ranks threads of this process (the cpu-threads transport).
std::vector<SizeResult> measureThreads(const PlanSource &source, const BenchCase &c,
                                       const std::vector<SizePoint> &sizes,
                                       const LoopSettings &settings, const ProgressFn &progress);

/// Runs the loop in c.ranks forked processes over POSIX shared memory (the cpu-shm transport,
/// job "plan-bench-<pid>"). A failing rank's message is rethrown as std::runtime_error and the
/// other ranks are stopped. Call it before this process starts any thread.
std::vector<SizeResult> measureShm(const PlanSource &source, const BenchCase &c,
                                   const std::vector<SizePoint> &sizes,
                                   const LoopSettings &settings, const ProgressFn &progress);

/// The simulated time of each size's plan on `topology` (simulateTimeUs; #wrong is not checked).
/// Throws SimError when a plan cannot be simulated there.
std::vector<SizeResult> measureSim(const PlanSource &source, const Topology &topology,
                                   const std::vector<SizePoint> &sizes, const ProgressFn &progress);

}  // namespace collplan::bench
