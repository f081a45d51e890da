// runBench: Backend::launch around the rank loop, or Backend::simulateUs per size.
#include "tuner/bench/RunBench.h"

#include "tuner/bench/CheckData.h"
#include "tuner/bench/DeviceLoop.h"
#include "tuner/bench/MemoryCheck.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collplan::bench {
namespace {

/// Refuses a run whose call buffers (every rank's input and output at the largest size), with
/// the plans and the ranks' prepared programs, exceed the machine's memory, before any rank
/// allocates them.
void checkRunMemory(const PlanSource &source, const BenchCase &c,
                    const std::vector<SizePoint> &sizes) {
  size_t maxCount = 0;
  for (const SizePoint &s : sizes) maxCount = std::max(maxCount, s.count);
  double buffers = 0;
  for (int r = 0; r < c.ranks; ++r)
    buffers += double(inputBytes(c, r, maxCount)) + double(outputBytes(c, r, maxCount));
  requireMemory(buffers,
                "the call buffers of " + std::to_string(c.ranks) + " ranks at the largest size",
                "lower --max-bytes or --ranks");
  requireMemory(buffers + double(source.totalOps()) * double(kPlanBytesPerOp + kPreparedBytesPerOp),
                "the call buffers, plans and prepared programs of " + std::to_string(c.ranks) +
                    " ranks",
                "lower --max-bytes or --ranks");
}

/// The launch's per-rank reports, decoded and combined over ranks.
std::vector<SizeResult> combineReports(const std::vector<std::string> &reports, size_t sizes) {
  std::vector<RankTimes> times;
  for (const std::string &report : reports) times.push_back(decodeRankTimes(report, sizes));
  return combineRanks(times);
}

}  // namespace

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
  checkRunMemory(source, c, sizes);
  if (backend.runsOnDevices()) {
    const std::unique_ptr<DeviceJob> job = backend.openDeviceJob(c.ranks);
    return combineRanks({runDeviceLoop(*job, source, c, sizes, settings, progress)});
  }
  const std::vector<std::string> reports = backend.launch(c.ranks, [&](RankSession &session) {
    return encodeRankTimes(runRankLoop(session, source, c, sizes, settings, progress));
  });
  return combineReports(reports, sizes.size());
}

std::vector<SizeResult> runNativeBench(const Backend &backend, const BenchCase &c,
                                       const std::vector<SizePoint> &sizes,
                                       const LoopSettings &settings) {
  const NativeCollectives *native = backend.nativeCollectives();
  if (!native)
    throw std::invalid_argument(std::string(backend.name()) + " has no collectives of its own");
  const std::vector<std::string> reports = backend.launch(c.ranks, [&](RankSession &session) {
    return encodeRankTimes(runNativeRankLoop(session, *native, c, sizes, settings));
  });
  return combineReports(reports, sizes.size());
}

}  // namespace collplan::bench
