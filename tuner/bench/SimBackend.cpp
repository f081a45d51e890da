// measureSim: simulated times of each size's plan on a topology (the `sim` backend).
#include "runtime/sim/Simulator.h"

#include "tuner/bench/Backends.h"

namespace collplan::bench {

std::vector<SizeResult> measureSim(const PlanSource &source, const Topology &topology,
                                   const std::vector<SizePoint> &sizes, const ProgressFn &progress) {
  std::vector<SizeResult> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (progress) progress(i, sizes[i]);
    SizeResult r;
    r.timeUs = simulateTimeUs(source.planFor(sizes[i].bytes), topology, sizes[i].bytes);
    out.push_back(r);
  }
  return out;
}

}  // namespace collplan::bench
