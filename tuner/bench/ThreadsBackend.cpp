// measureThreads: the rank loop on cpu-threads, one thread per rank.
#include "runtime/backends/cpu/ThreadsBackend.h"

#include "tuner/bench/Backends.h"
#include "tuner/bench/RankPlacement.h"

#include <exception>
#include <memory>
#include <thread>

namespace collplan::bench {

bool isKnownBackend(const std::string &name) {
  return name == "cpu-threads" || name == "cpu-shm" || name == "sim";
}

std::vector<SizeResult> measureThreads(const PlanSource &source, const BenchCase &c,
                                       const std::vector<SizePoint> &sizes,
                                       const LoopSettings &settings, const ProgressFn &progress) {
  auto shared = std::make_shared<ThreadsShared>(c.ranks);
  const RankPlacement placement;
  std::vector<RankTimes> times(size_t(c.ranks));
  std::vector<std::exception_ptr> errors(size_t(c.ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < c.ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        ThreadsTransport transport(shared, r, placement.place(r, c.ranks));
        times[size_t(r)] = runRankLoop(transport, source, c, sizes, settings, progress);
      } catch (...) {
        errors[size_t(r)] = std::current_exception();
      }
    });
  for (std::thread &t : threads) t.join();
  for (std::exception_ptr &e : errors)
    if (e) std::rethrow_exception(e);
  return combineRanks(times);
}

}  // namespace collplan::bench
