// runDeviceLoop: the benchmark loop over a DeviceJob's ranks, with device buffers and events.
#include "tuner/bench/DeviceLoop.h"

#include "tuner/bench/CheckData.h"

#include <algorithm>

namespace collplan::bench {
namespace {

/// One rank's input and output in device memory, freed with the loop.
class DeviceBuffers {
public:
  DeviceBuffers(DeviceJob &job, int rank, size_t inBytes, size_t outBytes)
      : job_(job), rank_(rank), in_(job.allocate(rank, inBytes + 8)),
        out_(job.allocate(rank, outBytes + 8)) {}
  ~DeviceBuffers() {
    job_.release(rank_, in_);
    job_.release(rank_, out_);
  }
  DeviceBuffers(const DeviceBuffers &) = delete;
  DeviceBuffers &operator=(const DeviceBuffers &) = delete;
  void *in() const { return in_; }
  void *out() const { return out_; }

private:
  DeviceJob &job_;
  int rank_;
  void *in_, *out_;
};

/// Every rank's output poisoned, one call, and the wrong elements over ranks.
uint64_t checkedCall(DeviceJob &job, const Plan &plan, const BenchCase &c, size_t count,
                     const std::vector<CallBuffers> &calls) {
  std::vector<char> host;
  for (int r = 0; r < c.ranks; ++r) {
    host.assign(outputBytes(c, r, count) + 8, 0);
    poisonOutput(c, r, count, host.data());
    job.copyIn(r, calls[size_t(r)].out, host.data(), calls[size_t(r)].outBytes);
  }
  job.enqueue(plan, calls);
  job.synchronize();
  uint64_t wrong = 0;
  for (int r = 0; r < c.ranks; ++r) {
    host.assign(outputBytes(c, r, count) + 8, 0);
    job.copyOut(r, host.data(), calls[size_t(r)].out, calls[size_t(r)].outBytes);
    wrong += countWrong(c, r, count, host.data());
  }
  return wrong;
}

}  // namespace

RankTimes runDeviceLoop(DeviceJob &job, const PlanSource &source, const BenchCase &c,
                        const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                        const ProgressFn &progress) {
  size_t maxCount = 0;
  for (const SizePoint &s : sizes) maxCount = std::max(maxCount, s.count);
  std::vector<std::unique_ptr<DeviceBuffers>> buffers;
  std::vector<char> host;
  for (int r = 0; r < c.ranks; ++r) {
    const size_t inBytes = inputBytes(c, r, maxCount);
    buffers.push_back(
        std::make_unique<DeviceBuffers>(job, r, inBytes, outputBytes(c, r, maxCount)));
    host.assign(inBytes + 8, 0);
    fillInput(c, r, maxCount, host.data());  // element e's value does not depend on the count
    job.copyIn(r, buffers.back()->in(), host.data(), inBytes);
  }

  RankTimes result;
  std::vector<CallBuffers> calls(size_t(c.ranks));
  for (size_t i = 0; i < sizes.size(); ++i) {
    const SizePoint &size = sizes[i];
    if (progress) progress(i, size);
    for (int r = 0; r < c.ranks; ++r) {
      CallBuffers &call = calls[size_t(r)];
      call.in = buffers[size_t(r)]->in();
      call.out = buffers[size_t(r)]->out();
      call.inBytes = inputBytes(c, r, size.count);
      call.outBytes = outputBytes(c, r, size.count);
      call.count = size.count;
      call.dtype = c.dtype;
      call.op = c.op;
    }
    const Plan &plan = source.planFor(size.bytes);
    uint64_t wrong = 0;
    if (settings.check && c.kind != CollectiveKind::Barrier)
      wrong = checkedCall(job, plan, c, size.count, calls);
    for (int w = 0; w < settings.warmup; ++w) job.enqueue(plan, calls);
    job.synchronize();
    const int reps = settings.reps > 0 ? settings.reps : autoRepetitions(size.bytes);
    std::vector<double> seconds;
    seconds.reserve(size_t(reps));
    for (int r = 0; r < reps; ++r) {
      job.startTimer();
      job.enqueue(plan, calls);
      seconds.push_back(job.stopTimer());
    }
    result.seconds.push_back(std::move(seconds));
    result.wrong.push_back(wrong);
  }
  return result;
}

}  // namespace collplan::bench
