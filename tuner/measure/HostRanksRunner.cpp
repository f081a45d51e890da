// HostRanksRunner: the rank loop every backend of host ranks runs, the wire format of a rank's
// times, and its launch.
#include "tuner/measure/HostRanksRunner.h"

#include "runtime/plan/DefaultPlans.h"
#include "tuner/measure/CheckData.h"
#include "tuner/measure/MemoryCheck.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace collplan::measure {
namespace {

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Zero-filled call buffer, aligned for any dtype: from the transport's shared memory when
/// asked and available (LoopSettings::sharedBuffers), else the heap.
class Buffer {
public:
  Buffer(Transport &transport, size_t bytes, bool shared) : transport_(transport) {
    if (shared) shared_ = transport.allocateShared(bytes + 8);
    if (!shared_) words_.assign(bytes / 8 + 1, 0);
  }
  ~Buffer() {
    if (shared_) transport_.freeShared(shared_);
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  void *data() { return shared_ ? shared_ : words_.data(); }

private:
  Transport &transport_;
  void *shared_ = nullptr;
  std::vector<uint64_t> words_;
};

/// One rank's barrier (the runtime's dissemination plan) between timed calls.
class RankBarrier {
public:
  RankBarrier(RankSession &session, int ranks)
      : session_(session), plan_(disseminationBarrierPlan(ranks, session.rank())),
        program_(session.prepare(plan_)) {}
  void wait() { session_.run(program_, CallBuffers{}); }

private:
  RankSession &session_;
  const Plan plan_;
  const PreparedProgram &program_;
};

/// One rank's times of `sizes`: `callerFor(size)` gives what runs one call of that size (a
/// function of the call's buffers); `checked`: count wrong results.
template <typename CallerFor>
RankTimes rankLoop(RankSession &session, const BenchCase &c, const std::vector<SizePoint> &sizes,
                   const LoopSettings &settings, const ProgressFn &progress, bool checked,
                   CallerFor &&callerFor) {
  const int rank = session.rank();
  RankBarrier barrier(session, c.ranks);
  size_t maxCount = 0;
  for (const SizePoint &s : sizes) maxCount = std::max(maxCount, s.count);
  Buffer in(session.transport(), inputBytes(c, rank, maxCount), settings.sharedBuffers);
  Buffer out(session.transport(), outputBytes(c, rank, maxCount), settings.sharedBuffers);
  fillInput(c, rank, maxCount, in.data());  // element e's value does not depend on the count

  RankTimes result;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const SizePoint &size = sizes[i];
    if (rank == 0 && progress) progress(i, size);
    const auto runCall = callerFor(size);
    const CallBuffers call = callOf(c, rank, size, in.data(), out.data());
    uint64_t wrong = 0;
    if (checked && settings.check && c.kind != CollectiveKind::Barrier) {
      poisonOutput(c, rank, size.count, out.data());
      barrier.wait();
      runCall(call);
      wrong = countWrong(c, rank, size.count, out.data());
    }
    for (int w = 0; w < settings.warmup; ++w) runCall(call);
    const int reps = settings.reps > 0 ? settings.reps : autoRepetitions(size.bytes);
    std::vector<double> seconds;
    seconds.reserve(size_t(reps));
    for (int r = 0; r < reps; ++r) {
      barrier.wait();
      const double t0 = nowSeconds();
      runCall(call);
      seconds.push_back(nowSeconds() - t0);
    }
    result.seconds.push_back(std::move(seconds));
    result.wrong.push_back(wrong);
  }
  return result;
}

/// A rank's times as bytes (what Backend::launch carries back from a rank).
std::string encodeRankTimes(const RankTimes &t) {
  std::string s;
  auto put = [&](const void *p, size_t n) { s.append(static_cast<const char *>(p), n); };
  for (size_t i = 0; i < t.seconds.size(); ++i) {
    const uint64_t reps = t.seconds[i].size();
    put(&t.wrong[i], 8);
    put(&reps, 8);
    put(t.seconds[i].data(), reps * 8);
  }
  return s;
}

RankTimes decodeRankTimes(const std::string &s, size_t sizes) {
  RankTimes t;
  size_t pos = 0;
  auto get = [&](void *p, size_t n) {
    if (pos + n > s.size()) throw std::runtime_error("a rank's results were cut short");
    std::memcpy(p, s.data() + pos, n);
    pos += n;
  };
  for (size_t i = 0; i < sizes; ++i) {
    uint64_t wrong = 0, reps = 0;
    get(&wrong, 8);
    get(&reps, 8);
    std::vector<double> seconds(reps);
    get(seconds.data(), reps * 8);
    t.wrong.push_back(wrong);
    t.seconds.push_back(std::move(seconds));
  }
  return t;
}

/// `loop` (a rank's RankTimes from its session) on every rank of a launch, combined over ranks.
template <typename Loop>
std::vector<SizeResult> launchAndCombine(const Backend &backend, int ranks, size_t sizes,
                                         Loop &&loop) {
  const std::vector<std::string> reports = backend.launch(
      ranks, [&](RankSession &session) { return encodeRankTimes(loop(session)); });
  std::vector<RankTimes> times;
  for (const std::string &report : reports) times.push_back(decodeRankTimes(report, sizes));
  return combineRanks(times);
}

}  // namespace

std::vector<SizeResult> HostRanksRunner::run(const PlanSource &source, const BenchCase &c,
                                             const std::vector<SizePoint> &sizes,
                                             const LoopSettings &settings,
                                             const ProgressFn &progress) const {
  requireRunMemory(source, c, sizes);
  return launchAndCombine(backend(), c.ranks, sizes.size(), [&](RankSession &session) {
    return rankLoop(session, c, sizes, settings, progress, /*checked=*/true,
                    [&](const SizePoint &size) {
                      const PreparedProgram &program = session.prepare(source.planFor(size.bytes));
                      return [&session, &program](const CallBuffers &call) {
                        session.run(program, call);
                      };
                    });
  });
}

void HostRanksRunner::checkNative(const BenchCase &c) const {
  native().check(c.kind, c.dtype);
}

std::vector<SizeResult> HostRanksRunner::runNative(const BenchCase &c,
                                                   const std::vector<SizePoint> &sizes,
                                                   const LoopSettings &settings) const {
  const NativeCollectives &own = native();
  return launchAndCombine(backend(), c.ranks, sizes.size(), [&](RankSession &session) {
    return rankLoop(session, c, sizes, settings, {}, /*checked=*/false, [&](const SizePoint &) {
      return [&own, &c](const CallBuffers &call) { own.run(c.kind, call, c.root); };
    });
  });
}

}  // namespace collplan::measure
