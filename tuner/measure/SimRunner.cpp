// SimRunner: each size's plan simulated on the topology; results checked on cpu-threads.
#include "tuner/measure/SimRunner.h"

#include "runtime/sim/SimError.h"

#include <stdexcept>

namespace collplan::measure {

SimRunner::SimRunner(const Backend &backend, const Topology &topology)
    : Runner(backend), topology_(topology), threads_(cpuThreadsBackend()) {}

std::vector<SizeResult> SimRunner::run(const PlanSource &source, const BenchCase &,
                                       const std::vector<SizePoint> &sizes, const LoopSettings &,
                                       const ProgressFn &progress) const {
  std::vector<SizeResult> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (progress) progress(i, sizes[i]);
    SizeResult r;
    r.timeUs = backend().simulateUs(source.planFor(sizes[i].bytes), topology_, sizes[i].bytes);
    r.samplesUs = {r.timeUs};
    out.push_back(r);
  }
  return out;
}

void SimRunner::checkNative(const BenchCase &) const {
  throw std::invalid_argument(std::string(backend().name()) +
                              " simulates plans; it has no collectives of its own");
}

std::vector<SizeResult> SimRunner::runNative(const BenchCase &c, const std::vector<SizePoint> &,
                                             const LoopSettings &) const {
  checkNative(c);
  return {};
}

std::optional<std::string> SimRunner::unsupported(const Plan &plan, const BenchCase &c) const {
  try {
    (void)backend().simulateUs(plan, topology_, callPoint(c, 1).bytes);
  } catch (const SimError &e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

const Runner *SimRunner::resultChecker(int ranks, std::string &why) const {
  if (ranks <= kMaxCheckedRanks) return &threads_;
  why = "not checked: " + std::to_string(ranks) + " ranks are too many to run as threads";
  return nullptr;
}

}  // namespace collplan::measure
