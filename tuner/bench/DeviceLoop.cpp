// runDeviceSweep: the benchmark loop over a DeviceJob's ranks, with device buffers and events.
#include "tuner/bench/DeviceLoop.h"

#include "tuner/bench/CheckData.h"

#include <algorithm>

namespace collplan::bench {
namespace {

size_t largestCount(const std::vector<SizePoint> &sizes) {
  size_t count = 0;
  for (const SizePoint &s : sizes) count = std::max(count, s.count);
  return count;
}

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

}  // namespace

DeviceSweepBuffers::DeviceSweepBuffers(DeviceJob &job, const BenchCase &c,
                                       const std::vector<SizePoint> &sizes)
    : job_(job), case_(c) {
  const size_t maxCount = largestCount(sizes);
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

DeviceSweepBuffers::~DeviceSweepBuffers() { releaseAll(); }

void DeviceSweepBuffers::releaseAll() {
  for (size_t r = 0; r < buffers_.size(); ++r)
    for (void *p : {buffers_[r].first, buffers_[r].second})
      if (p) job_.release(int(r), p);
  buffers_.clear();
}

std::vector<CallBuffers> DeviceSweepBuffers::calls(const SizePoint &size) const {
  std::vector<CallBuffers> out(buffers_.size());
  for (int r = 0; r < int(buffers_.size()); ++r) {
    CallBuffers &call = out[size_t(r)];
    call.in = buffers_[size_t(r)].first;
    call.out = buffers_[size_t(r)].second;
    call.inBytes = inputBytes(case_, r, size.count);
    call.outBytes = outputBytes(case_, r, size.count);
    call.count = size.count;
    call.dtype = case_.dtype;
    call.op = case_.op;
  }
  return out;
}

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

RankTimes runDeviceLoop(DeviceJob &job, const PlanSource &source, const BenchCase &c,
                        const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                        const ProgressFn &progress) {
  const DeviceSweepBuffers buffers(job, c, sizes);
  return runDeviceSweep(job, buffers, c, sizes, settings, progress,
                        [&](const SizePoint &size, const std::vector<CallBuffers> &calls) {
                          job.enqueue(source.planFor(size.bytes), calls);
                        });
}

}  // namespace collplan::bench
