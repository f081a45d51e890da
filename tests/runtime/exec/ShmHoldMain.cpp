// collplan_shm_hold: a cpu-shm rank for the launcher tests: checked allreduces, then it waits.
//   collplan_shm_hold WORK_SECONDS [HOLD_SECONDS [DEAF_RANKS]]   (under collplan-shm-launch)
// Repeats a checked allreduce until rank 0 has worked WORK_SECONDS (every rank stops after the
// same call), prints "ready rank R", keeps the job open HOLD_SECONDS more, makes a barrier and
// prints "ok rank R". The ranks in the comma list DEAF_RANKS ignore SIGTERM. Exits 0; 1 on a
// collplan error (printed); 3 on a wrong value.
#include "collplan.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s WORK_SECONDS [HOLD_SECONDS]\n", argv[0]);
    return 2;
  }
  const double work = std::atof(argv[1]), hold = argc > 2 ? std::atof(argv[2]) : 0;
  try {
    collplan::World world = collplan::World::fromEnv();
    const int rank = world.localRank();
    if (argc > 3 && (',' + std::string(argv[3]) + ',').find(',' + std::to_string(rank) + ',') !=
                        std::string::npos)
      std::signal(SIGTERM, SIG_IGN);
    collplan::Comm comm = world.comm(rank);
    const int ranks = comm.size();
    const auto start = std::chrono::steady_clock::now();
    for (long call = 0;; ++call) {
      std::vector<int64_t> x(1000, rank + call);
      comm.allreduce(x.data(), x.data(), x.size(), COLLPLAN_SUM);
      const int64_t expected = int64_t(ranks) * (ranks - 1) / 2 + ranks * call;
      for (int64_t v : x)
        if (v != expected) {
          std::printf("wrong rank %d: call %ld gave %lld, expected %lld\n", rank, call,
                      (long long)v, (long long)expected);
          return 3;
        }
      const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
      int32_t more = rank == 0 && spent.count() < work ? 1 : 0;
      comm.allreduce(&more, &more, 1, COLLPLAN_MAX);
      if (!more) break;
    }
    std::printf("ready rank %d\n", rank);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::duration<double>(hold));
    comm.barrier();
    std::printf("ok rank %d\n", rank);
  } catch (const std::exception &e) {
    std::printf("collplan_shm_hold: %s\n", e.what());
    return 1;
  }
  return 0;
}
