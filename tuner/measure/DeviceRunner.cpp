// DeviceRunner: the benchmark loop over a DeviceJob's ranks, with device buffers and events.
#include "tuner/measure/DeviceRunner.h"

#include "tuner/measure/CheckData.h"
#include "tuner/measure/MemoryCheck.h"

#include <algorithm>
#include <stdexcept>

namespace collplan::measure {
namespace {

/// Every rank's input and output in device memory, sized for the largest size of a sweep, the
/// input filled with the check pattern (fillInput); released with this object.
class DeviceSweepBuffers {
public:
  DeviceSweepBuffers(DeviceJob &job, const BenchCase &c, const std::vector<SizePoint> &sizes);
  ~DeviceSweepBuffers() { releaseAll(); }
  DeviceSweepBuffers(const DeviceSweepBuffers &) = delete;
  DeviceSweepBuffers &operator=(const DeviceSweepBuffers &) = delete;

  /// Every rank's call of `size` on these buffers (calls[r] is rank r's).
  std::vector<CallBuffers> calls(const SizePoint &size) const {
    std::vector<CallBuffers> out;
    for (int r = 0; r < int(buffers_.size()); ++r)
      out.push_back(callOf(case_, r, size, buffers_[size_t(r)].first, buffers_[size_t(r)].second));
    return out;
  }

private:
  void releaseAll();

  DeviceJob &job_;
  BenchCase case_;
  std::vector<std::pair<void *, void *>> buffers_;  ///< per rank: input, output
};

DeviceSweepBuffers::DeviceSweepBuffers(DeviceJob &job, const BenchCase &c,
                                       const std::vector<SizePoint> &sizes)
    : job_(job), case_(c) {
  size_t maxCount = 0;
  for (const SizePoint &s : sizes) maxCount = std::max(maxCount, s.count);
  std::vector<char> host;
  try {
    for (int r = 0; r < c.ranks; ++r) {
      const size_t inBytes = inputBytes(c, r, maxCount);
      buffers_.emplace_back(job.allocate(r, inBytes + 8), nullptr);
      buffers_.back().second = job.allocate(r, outputBytes(c, r, maxCount) + 8);
      host.assign(inBytes + 8, 0);
      fillInput(c, r, maxCount, host.data());  // element e's value does not depend on the count
      job.copyIn(r, buffers_.back().first, host.data(), inBytes);
    }
  } catch (...) {
    releaseAll();
    throw;
  }
}

void DeviceSweepBuffers::releaseAll() {
  for (size_t r = 0; r < buffers_.size(); ++r)
    for (void *p : {buffers_[r].first, buffers_[r].second})
      if (p) job_.release(int(r), p);
  buffers_.clear();
}

/// Enqueues one call of `size` on every rank of the job (calls[r] is rank r's), without waiting.
using DeviceCaller =
    std::function<void(const SizePoint &size, const std::vector<CallBuffers> &calls)>;

/// Every rank's output poisoned, one call, and the wrong elements over ranks.
uint64_t checkedCall(DeviceJob &job, const BenchCase &c, const SizePoint &size,
                     const std::vector<CallBuffers> &calls, const DeviceCaller &enqueue) {
  std::vector<char> host;
  for (int r = 0; r < c.ranks; ++r) {
    host.assign(outputBytes(c, r, size.count) + 8, 0);
    poisonOutput(c, r, size.count, host.data());
    job.copyIn(r, calls[size_t(r)].out, host.data(), calls[size_t(r)].outBytes);
  }
  enqueue(size, calls);
  job.synchronize();
  uint64_t wrong = 0;
  for (int r = 0; r < c.ranks; ++r) {
    host.assign(outputBytes(c, r, size.count) + 8, 0);
    job.copyOut(r, host.data(), calls[size_t(r)].out, calls[size_t(r)].outBytes);
    wrong += countWrong(c, r, size.count, host.data());
  }
  return wrong;
}

/// The loop both the plans and the native collectives run, on every rank of `job` at once.
RankTimes runDeviceSweep(DeviceJob &job, const DeviceSweepBuffers &buffers, const BenchCase &c,
                         const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                         const ProgressFn &progress, const DeviceCaller &enqueue) {
  RankTimes result;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const SizePoint &size = sizes[i];
    if (progress) progress(i, size);
    const std::vector<CallBuffers> calls = buffers.calls(size);
    uint64_t wrong = 0;
    if (settings.check && c.kind != CollectiveKind::Barrier)
      wrong = checkedCall(job, c, size, calls, enqueue);
    for (int w = 0; w < settings.warmup; ++w) enqueue(size, calls);
    job.synchronize();
    const int reps = settings.reps > 0 ? settings.reps : autoRepetitions(size.bytes);
    result.seconds.push_back(job.timeCalls(reps, [&](int) { enqueue(size, calls); }));
    result.wrong.push_back(wrong);
  }
  return result;
}

/// Throws std::runtime_error at the first size where the native collectives computed a wrong
/// result: the library was handed buffers it does not expect.
void requireNativeCorrect(const NativeCollectives &native, const BenchCase &c,
                          const std::vector<SizePoint> &sizes,
                          const std::vector<SizeResult> &results) {
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].wrong)
      throw std::runtime_error(native.functionName(c.kind) + " gave " +
                               std::to_string(results[i].wrong) + " wrong elements at " +
                               std::to_string(sizes[i].bytes) + " bytes (" + describe(c) +
                               "): collplan passes it buffers it does not expect (a bug)");
}

}  // namespace

RankTimes runDeviceLoop(DeviceJob &job, const PlanSource &source, const BenchCase &c,
                        const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                        const ProgressFn &progress) {
  const DeviceSweepBuffers buffers(job, c, sizes);
  return runDeviceSweep(job, buffers, c, sizes, settings, progress,
                        [&](const SizePoint &size, const std::vector<CallBuffers> &calls) {
                          job.enqueue(source.planFor(size.bytes), calls);
                        });
}

std::vector<SizeResult> DeviceRunner::run(const PlanSource &source, const BenchCase &c,
                                          const std::vector<SizePoint> &sizes,
                                          const LoopSettings &settings,
                                          const ProgressFn &progress) const {
  requireRunMemory(source, c, sizes);
  const std::unique_ptr<DeviceJob> job = backend().openDeviceJob(c.ranks);
  return combineRanks({runDeviceLoop(*job, source, c, sizes, settings, progress)});
}

void DeviceRunner::checkNative(const BenchCase &c) const {
  const NativeCollectives &own = native();
  own.check(c.kind, c.dtype);
  own.checkJob(*backend().openDeviceJob(c.ranks));
}

std::vector<SizeResult> DeviceRunner::runNative(const BenchCase &c,
                                                const std::vector<SizePoint> &sizes,
                                                const LoopSettings &settings) const {
  const NativeCollectives &own = native();
  own.check(c.kind, c.dtype);
  const std::unique_ptr<DeviceJob> job = backend().openDeviceJob(c.ranks);
  own.checkJob(*job);
  const DeviceSweepBuffers buffers(*job, c, sizes);
  // After the buffers, so the library's handles go first: closed on an error, they stop the
  // kernels that could still use the buffers.
  const std::unique_ptr<NativeDeviceCalls> calls = own.open(*job);
  const std::vector<SizeResult> results = combineRanks({runDeviceSweep(
      *job, buffers, c, sizes, settings, {},
      [&](const SizePoint &, const std::vector<CallBuffers> &each) {
        calls->enqueue(c.kind, c.root, each);
      })});
  requireNativeCorrect(own, c, sizes, results);
  return results;
}

void DeviceRunner::checkUsable(int ranks) const { (void)backend().openDeviceJob(ranks); }

}  // namespace collplan::measure
