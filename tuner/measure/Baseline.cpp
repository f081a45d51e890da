// The baseline registry and what its entries share.
#include "tuner/measure/Baseline.h"

#include <stdexcept>

namespace collplan::measure {

const std::vector<const Baseline *> &baselines() {
  static const std::vector<const Baseline *> registry = {&mpiBaseline(), &ncclBaseline()};
  return registry;
}

const Baseline *findBaseline(std::string_view name) {
  for (const Baseline *b : baselines())
    if (b->name() == name) return b;
  return nullptr;
}

std::string baselineNames() {
  std::string out;
  for (const Baseline *b : baselines()) out += (out.empty() ? "" : ", ") + std::string(b->name());
  return out;
}

std::vector<double> medians(const std::vector<SizeResult> &results) {
  std::vector<double> out;
  for (const SizeResult &r : results) out.push_back(r.timeUs);
  return out;
}

void asBaselineError(const Baseline &baseline, const std::function<void()> &body) {
  const std::string prefix = "--baseline " + std::string(baseline.name()) + ": ";
  try {
    body();
  } catch (const std::invalid_argument &e) {
    throw std::invalid_argument(prefix + e.what());
  } catch (const std::runtime_error &e) {
    throw std::runtime_error(prefix + e.what());
  }
}

}  // namespace collplan::measure
