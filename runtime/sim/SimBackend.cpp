// The sim registry entry: plans timed on a topology by the simulator; no job, no data.
#include "runtime/backends/Backend.h"
#include "runtime/exec/RuntimeError.h"
#include "runtime/sim/Simulator.h"

namespace collplan {
namespace {

class Sim final : public Backend {
public:
  std::string_view name() const override { return "sim"; }
  std::string_view summary() const override {
    return "times plans on a topology with the congestion-aware simulator; moves no data";
  }
  BackendKind kind() const override { return BackendKind::Simulated; }
  double launchOverheadUs() const override { return 50; }  // building the simulation

  std::unique_ptr<Job> openJob(const JobOptions &) const override {
    throw RuntimeError(ErrorCode::Unsupported, refusal());
  }
  std::vector<std::string> launch(int, const RankBody &) const override {
    throw std::invalid_argument(refusal());
  }
  double simulateUs(const Plan &plan, const Topology &topology, uint64_t bytes) const override {
    return simulateTimeUs(plan, topology, bytes);
  }

private:
  static std::string refusal() {
    return "the sim backend times plans on a topology and moves no data: it runs no calls "
           "(time plans with plan-bench or plan-tune --backend sim)";
  }
};

}  // namespace

const Backend &simBackend() {
  static const Sim backend;
  return backend;
}

}  // namespace collplan
