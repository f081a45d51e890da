// The nccl baseline: the own collectives (NCCL's) of a backend whose ranks run on devices.
#include "tuner/measure/Baseline.h"

#include <stdexcept>

namespace collplan::measure {
namespace {

/// The registry's backends whose ranks run on devices, for messages: "--backend cuda".
std::string deviceBackendOptions() {
  std::string names;
  for (const Backend *b : backends())
    if (b->kind() == BackendKind::Devices)
      names += (names.empty() ? "--backend " : " or --backend ") + std::string(b->name());
  return names.empty() ? "none in this build: the cuda backend is built when CMake finds nvcc"
                       : names;
}

class NcclBaseline final : public Baseline {
public:
  std::string_view name() const override { return "nccl"; }

  void checkBackend(const Backend &backend) const override {
    if (backend.kind() != BackendKind::Devices)
      throw std::invalid_argument("--baseline nccl times NCCL on the GPUs of the job, so it "
                                  "needs a backend whose ranks run on devices (" +
                                  deviceBackendOptions() + "), not --backend " +
                                  std::string(backend.name()));
    if (!backend.nativeCollectives())
      throw std::invalid_argument("--baseline nccl: --backend " + std::string(backend.name()) +
                                  " has no collectives of its own");
  }

  void checkCase(const Runner &runner, const BenchCase &c,
                 const BaselineOptions &) const override {
    checkBackend(runner.backend());
    asBaselineError(*this, [&] { runner.checkNative(c); });
  }

  BaselineTimes run(const Runner &runner, const BenchCase &c, const std::vector<SizePoint> &sizes,
                    const LoopSettings &settings, const BaselineOptions &,
                    const NoteFn &note) const override {
    const NativeCollectives &nccl = *runner.backend().nativeCollectives();
    if (note) note("running " + nccl.functionName(c.kind) + "...");
    BaselineTimes out;
    asBaselineError(*this, [&] { out.us = medians(runner.runNative(c, sizes, settings)); });
    out.label = nccl.functionName(c.kind) + " (" + nccl.library() + ", the same devices)";
    return out;
  }
};

}  // namespace

const Baseline &ncclBaseline() {
  static const NcclBaseline baseline;
  return baseline;
}

}  // namespace collplan::measure
