// collplan_bench_allreduce: f32 allreduce sweep on cpu-threads / cpu-shm, and a memcpy roofline.
//   collplan_bench_allreduce threads N            N ranks as threads
//   collplan-shm-launch -n N collplan_bench_allreduce shm      N processes (cpu-shm)
//   collplan_bench_allreduce memcpy              copy bandwidth, 1 and 2 threads, 64 MiB
// Each repetition: barrier, time the allreduce on every rank, keep the slowest rank's time; the
// median over repetitions is printed (nccl-tests columns: size count type time algbw busbw).
#include "SweepSizes.h"
#include "collplan.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Runs the sweep on one rank; `rankTimes` collects this rank's per-repetition seconds. The
/// slowest rank per repetition is found with an allreduce(max) of the times (f64).
/// `registered`: the buffers come from comm.alloc (collplan_mem_alloc), else from the heap.
void sweepRank(collplan::Comm &comm, const char *backend, bool print, bool registered = false) {
  const int ranks = comm.size();
  if (print) {
    std::printf("# backend=%s ranks=%d buffers=%s (median of reps; time = slowest rank)\n",
                backend, ranks, registered ? "collplan_mem_alloc" : "heap");
    std::printf("%12s %10s %6s %12s %10s %10s %10s\n", "size", "count", "type", "time(us)",
                "algbw", "busbw", "algorithm");
  }
  const size_t maxCount = kSweepBytes[kSweepSizes - 1] / 4;
  std::vector<float> heapSend, heapRecv;
  float *send = nullptr, *recv = nullptr;
  if (registered) {
    send = static_cast<float *>(comm.alloc(maxCount * sizeof(float)));
    recv = static_cast<float *>(comm.alloc(maxCount * sizeof(float)));
    std::fill(send, send + maxCount, 1.0f);
  } else {
    heapSend.assign(maxCount, 1.0f);
    heapRecv.assign(maxCount, 0.0f);
    send = heapSend.data(), recv = heapRecv.data();
  }
  for (int s = 0; s < kSweepSizes; ++s) {
    const size_t count = kSweepBytes[s] / 4;
    const int reps = sweepReps(kSweepBytes[s]);
    for (int w = 0; w < 3; ++w) comm.allreduce(send, recv, count, COLLPLAN_SUM);
    std::vector<double> times;
    std::string algorithm;  // of the timed call (the max-allreduce below runs its own plan)
    for (int r = 0; r < reps; ++r) {
      comm.barrier();
      const double t0 = now();
      comm.allreduce(send, recv, count, COLLPLAN_SUM);
      double t = now() - t0;
      algorithm = comm.lastAlgorithm();
      comm.allreduce(&t, &t, 1, COLLPLAN_MAX);
      times.push_back(t);
    }
    if (recv[0] != float(ranks) || recv[count - 1] != float(ranks)) {
      std::fprintf(stderr, "wrong result at %zu bytes\n", kSweepBytes[s]);
      std::exit(1);
    }
    const double t = median(times);
    const double algbw = double(kSweepBytes[s]) / t / 1e9;
    if (print)
      std::printf("%12zu %10zu %6s %12.2f %10.3f %10.3f %10s\n", kSweepBytes[s], count, "float",
                  t * 1e6, algbw, algbw * 2.0 * (ranks - 1) / ranks, algorithm.c_str());
    std::fflush(stdout);
  }
}

/// Copy bandwidth in bytes moved per second (read + write = 2 x copied bytes), `threads`
/// threads each copying its own 64 MiB buffer; median of 9.
double memcpyBandwidth(int threads) {
  const size_t bytes = size_t(64) << 20;
  std::vector<std::vector<char>> src(static_cast<size_t>(threads), std::vector<char>(bytes, 1)),
      dst(static_cast<size_t>(threads), std::vector<char>(bytes, 0));
  std::vector<double> rates;
  for (int rep = 0; rep < 10; ++rep) {
    std::vector<std::thread> pool;
    std::vector<double> t(static_cast<size_t>(threads));
    const double start = now();
    for (int i = 0; i < threads; ++i)
      pool.emplace_back([&, i] {
        std::memcpy(dst[size_t(i)].data(), src[size_t(i)].data(), bytes);
        t[size_t(i)] = now();
      });
    for (auto &th : pool) th.join();
    const double end = *std::max_element(t.begin(), t.end());
    if (rep > 0) rates.push_back(2.0 * double(bytes) * threads / (end - start));
  }
  return median(rates);
}

}  // namespace

int main(int argc, char **argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "threads" && argc > 2) {
      collplan::World world = collplan::World::threads(std::atoi(argv[2]));
      world.runThreads([](collplan::Comm &comm) { sweepRank(comm, "cpu-threads", comm.rank() == 0); });
    } else if (mode == "shm" || mode == "shm-registered") {
      collplan::World world = collplan::World::fromEnv();
      collplan::Comm comm = world.comm(world.localRank());
      sweepRank(comm, "cpu-shm", comm.rank() == 0, mode == "shm-registered");
    } else if (mode == "memcpy") {
      for (int threads : {1, 2})
        std::printf("memcpy 64 MiB, %d thread(s): %.2f GB/s moved (read + write)\n", threads,
                    memcpyBandwidth(threads) / 1e9);
    } else {
      std::fprintf(stderr, "usage: %s threads N | shm | shm-registered (under collplan-shm-launch) | memcpy\n", argv[0]);
      return 2;
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
