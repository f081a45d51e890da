// example.cpp: the C++ API on cpu-threads, or on cpu-shm under collplan-shm-launch (--from-env).
#include "collplan.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

/// Allgather of each rank's id, then an allreduce; throws collplan::Error on failure.
static void work(collplan::Comm &comm) {
  const int rank = comm.rank(), ranks = comm.size();
  std::vector<int32_t> mine(3, rank), all(size_t(3 * ranks));
  comm.allgather(mine.data(), all.data(), mine.size());
  for (int r = 0; r < ranks; ++r)
    if (all[size_t(3 * r)] != r) throw std::runtime_error("allgather gave a wrong block");

  std::vector<double> x(4096, 1.0);
  comm.allreduce(x.data(), x.data(), x.size(), COLLPLAN_SUM);  // in place
  if (x[0] != ranks) throw std::runtime_error("allreduce gave a wrong sum");
}

int main(int argc, char **argv) {
  try {
    if (argc > 1 && std::strcmp(argv[1], "--from-env") == 0) {
      // One rank per process: collplan-shm-launch -n 3 ./example --from-env
      collplan::World world = collplan::World::fromEnv();
      collplan::Comm comm = world.comm(world.localRank());
      work(comm);
    } else {
      collplan::World world = collplan::World::threads(4);  // 4 ranks as threads
      world.runThreads(work);
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "collplan example: %s\n", e.what());
    return 1;
  }
  std::puts("ok");
  return 0;
}
