// makeRunner (the one choice of a runner by the backend's kind) and what every runner shares.
#include "tuner/measure/Runner.h"

#include "tuner/measure/DeviceRunner.h"
#include "tuner/measure/HostRanksRunner.h"
#include "tuner/measure/SimRunner.h"

#include <algorithm>
#include <stdexcept>

namespace collplan::measure {

std::vector<SizeResult> combineRanks(const std::vector<RankTimes> &ranks) {
  std::vector<SizeResult> out;
  if (ranks.empty()) return out;
  for (size_t s = 0; s < ranks[0].seconds.size(); ++s) {
    std::vector<double> slowest(ranks[0].seconds[s].size(), 0.0);
    SizeResult r;
    for (const RankTimes &rt : ranks) {
      for (size_t k = 0; k < slowest.size() && k < rt.seconds[s].size(); ++k)
        slowest[k] = std::max(slowest[k], rt.seconds[s][k]);
      r.wrong += rt.wrong[s];
    }
    std::sort(slowest.begin(), slowest.end());
    r.timeUs = slowest.empty() ? 0 : slowest[slowest.size() / 2] * 1e6;
    for (double seconds : slowest) r.samplesUs.push_back(seconds * 1e6);
    out.push_back(r);
  }
  return out;
}

std::optional<std::string> Runner::unsupported(const Plan &, const BenchCase &) const {
  return std::nullopt;
}

const Runner *Runner::resultChecker(int, std::string &) const { return this; }

const NativeCollectives &Runner::native() const {
  const NativeCollectives *native = backend_.nativeCollectives();
  if (!native)
    throw std::invalid_argument(std::string(backend_.name()) + " has no collectives of its own");
  return *native;
}

std::unique_ptr<Runner> makeRunner(const Backend &backend, const Topology *topology) {
  switch (backend.kind()) {
  case BackendKind::HostRanks: return std::make_unique<HostRanksRunner>(backend);
  case BackendKind::Devices: return std::make_unique<DeviceRunner>(backend);
  case BackendKind::Simulated:
    if (!topology)
      throw std::invalid_argument(std::string(backend.name()) + " needs a topology to time plans on");
    return std::make_unique<SimRunner>(backend, *topology);
  }
  throw std::logic_error("makeRunner: a backend kind without a runner");
}

}  // namespace collplan::measure
