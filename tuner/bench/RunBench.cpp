// runBench: Backend::launch around the rank loop, or Backend::simulateUs per size.
#include "tuner/bench/RunBench.h"

#include <stdexcept>

namespace collplan::bench {

std::vector<SizeResult> runBench(const Backend &backend, const PlanSource &source,
                                 const BenchCase &c, const std::vector<SizePoint> &sizes,
                                 const LoopSettings &settings, const ProgressFn &progress,
                                 const Topology *topology) {
  if (backend.simulated()) {
    if (!topology)
      throw std::invalid_argument(std::string(backend.name()) + " needs a topology to time plans on");
    std::vector<SizeResult> out;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (progress) progress(i, sizes[i]);
      SizeResult r;
      r.timeUs = backend.simulateUs(source.planFor(sizes[i].bytes), *topology, sizes[i].bytes);
      out.push_back(r);
    }
    return out;
  }
  const std::vector<std::string> reports = backend.launch(c.ranks, [&](RankSession &session) {
    return encodeRankTimes(runRankLoop(session, source, c, sizes, settings, progress));
  });
  std::vector<RankTimes> times;
  for (const std::string &report : reports) times.push_back(decodeRankTimes(report, sizes.size()));
  return combineRanks(times);
}

}  // namespace collplan::bench
