// runRankLoop: the per-rank benchmark loop every backend that moves data runs, its wire format
// and its reduction over ranks.
#include "tuner/bench/RankLoop.h"

#include "runtime/plan/DefaultPlans.h"
#include "tuner/bench/CheckData.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>

namespace collplan::bench {
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

/// The loop both runRankLoop and runNativeRankLoop run. `callerFor(size)` gives what runs one
/// call of that size (a function of the call's buffers); `checked`: count wrong results.
template <typename CallerFor>
RankTimes rankLoop(RankSession &session, const BenchCase &c, const std::vector<SizePoint> &sizes,
                   const LoopSettings &settings, const ProgressFn &progress, bool checked,
                   CallerFor &&callerFor) {
  const int rank = session.rank();
  Transport &transport = session.transport();
  const Plan barrierPlan = disseminationBarrierPlan(c.ranks, rank);
  const PreparedProgram &barrier = session.prepare(barrierPlan);
  const CallBuffers barrierCall;

  size_t maxCount = 0;
  for (const SizePoint &s : sizes) maxCount = std::max(maxCount, s.count);
  Buffer in(transport, inputBytes(c, rank, maxCount), settings.sharedBuffers);
  Buffer out(transport, outputBytes(c, rank, maxCount), settings.sharedBuffers);
  fillInput(c, rank, maxCount, in.data());  // element e's value does not depend on the count

  RankTimes result;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const SizePoint &size = sizes[i];
    if (rank == 0 && progress) progress(i, size);
    const auto runCall = callerFor(size);

    CallBuffers call;
    call.in = in.data();
    call.out = out.data();
    call.inBytes = inputBytes(c, rank, size.count);
    call.outBytes = outputBytes(c, rank, size.count);
    call.count = size.count;
    call.dtype = c.dtype;
    call.op = c.op;

    uint64_t wrong = 0;
    if (checked && settings.check && c.kind != CollectiveKind::Barrier) {
      poisonOutput(c, rank, size.count, out.data());
      session.run(barrier, barrierCall);
      runCall(call);
      wrong = countWrong(c, rank, size.count, out.data());
    }
    for (int w = 0; w < settings.warmup; ++w) runCall(call);
    const int reps = settings.reps > 0 ? settings.reps : autoRepetitions(size.bytes);
    std::vector<double> seconds;
    seconds.reserve(size_t(reps));
    for (int r = 0; r < reps; ++r) {
      session.run(barrier, barrierCall);
      const double t0 = nowSeconds();
      runCall(call);
      seconds.push_back(nowSeconds() - t0);
    }
    result.seconds.push_back(std::move(seconds));
    result.wrong.push_back(wrong);
  }
  return result;
}

}  // namespace

RankTimes runRankLoop(RankSession &session, const PlanSource &source, const BenchCase &c,
                      const std::vector<SizePoint> &sizes, const LoopSettings &settings,
                      const ProgressFn &progress) {
  return rankLoop(session, c, sizes, settings, progress, /*checked=*/true,
                  [&](const SizePoint &size) {
                    const PreparedProgram &program = session.prepare(source.planFor(size.bytes));
                    return [&session, &program](const CallBuffers &call) {
                      session.run(program, call);
                    };
                  });
}

RankTimes runNativeRankLoop(RankSession &session, const NativeCollectives &native,
                            const BenchCase &c, const std::vector<SizePoint> &sizes,
                            const LoopSettings &settings) {
  return rankLoop(session, c, sizes, settings, {}, /*checked=*/false, [&](const SizePoint &) {
    return [&native, &c](const CallBuffers &call) { native.run(c.kind, call, c.root); };
  });
}

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

}  // namespace collplan::bench
