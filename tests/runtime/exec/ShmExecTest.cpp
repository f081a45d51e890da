// cpu-shm tests: ranks as forked processes over POSIX shared memory; segment errors and cleanup.
#include "ExecTestSupport.h"

#include "runtime/exec/RuntimeError.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace collplan;
using namespace collplan::test;

namespace {

std::string uniqueJob(const char *tag) {
  return std::string("test-") + tag + "-" + std::to_string(getpid()) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000);
}

/// Names under /dev/shm that belong to `job`.
std::vector<std::string> leftovers(const std::string &job) {
  std::vector<std::string> found;
  if (DIR *dir = opendir("/dev/shm")) {
    while (dirent *e = readdir(dir))
      if (std::string(e->d_name).rfind("collplan-" + job, 0) == 0) found.push_back(e->d_name);
    closedir(dir);
  }
  return found;
}

/// The cases every cpu-shm rank runs: a representative subset of the cpu-threads sweep.
std::vector<CollCase> shmCases(int ranks) {
  std::vector<CollCase> cases;
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                              CollectiveKind::ReduceScatter, CollectiveKind::AllToAll,
                              CollectiveKind::Broadcast, CollectiveKind::Reduce})
    for (const CollCase &c : sweepCases(kind, ranks, /*allOps=*/false))
      if (c.dtype == DType::F32 || c.dtype == DType::BF16 || c.dtype == DType::I64) cases.push_back(c);
  CollCase big;  // grows the staging segment (a new generation) mid-run
  big.count = 200003;
  for (Placement p : {Placement::OutOfPlace, Placement::InPlace}) {
    big.placement = p;
    cases.push_back(big);
  }
  CollCase maxF16;
  maxF16.dtype = DType::F16;
  maxF16.op = ReduceOp::Max;
  maxF16.count = 101;
  cases.push_back(maxF16);
  return cases;
}

/// Forks `ranks` processes that each attach to the job and run the cases; returns "" when all
/// exit 0, else what went wrong.
std::string runForked(int ranks, const std::string &job) {
  std::vector<pid_t> children;
  for (int r = 0; r < ranks; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("COLLPLAN_TIMEOUT_S", "30", 1);
      int code = 0;
      try {
        World world = World::shm(job.c_str(), ranks, r);
        Comm comm = world.comm(r);
        for (const CollCase &c : shmCases(ranks)) {
          const std::string error = runAndCheck(comm, c);
          if (!error.empty()) {
            std::fprintf(stderr, "%s\n", error.c_str());
            code = 1;
            break;
          }
        }
        if (code == 0) comm.barrier();
      } catch (const std::exception &e) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.what());
        code = 2;
      }
      std::fflush(stderr);
      _exit(code);
    }
    children.push_back(pid);
  }
  std::string result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  size_t done = 0;
  std::vector<bool> finished(children.size(), false);
  while (done < children.size()) {
    for (size_t r = 0; r < children.size(); ++r) {
      if (finished[r]) continue;
      int status = 0;
      if (waitpid(children[r], &status, WNOHANG) == children[r]) {
        finished[r] = true;
        ++done;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
          result += "rank " + std::to_string(r) + " failed (status " + std::to_string(status) + "); ";
      }
    }
    if (std::chrono::steady_clock::now() > deadline) {
      for (size_t r = 0; r < children.size(); ++r)
        if (!finished[r]) kill(children[r], SIGKILL), waitpid(children[r], nullptr, 0);
      return result + "timed out";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return result;
}

class ExecShm : public ::testing::TestWithParam<int> {};

TEST_P(ExecShm, RepresentativeSweepAcrossProcesses) {
  const std::string job = uniqueJob("sweep");
  EXPECT_EQ(runForked(GetParam(), job), "");
  EXPECT_TRUE(leftovers(job).empty()) << "segments left in /dev/shm";
}

INSTANTIATE_TEST_SUITE_P(Ranks, ExecShm, ::testing::Values(1, 2, 3, 5, 8),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return "N" + std::to_string(info.param);
                         });

TEST(ExecShmErrors, MissingRankZeroTimesOutWithAClearMessage) {
  setenv("COLLPLAN_TIMEOUT_S", "0.3", 1);
  const std::string job = uniqueJob("alone");
  try {
    World world = World::shm(job.c_str(), 2, 1);
    FAIL() << "expected a timeout";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), COLLPLAN_ERROR_TIMEOUT);
    EXPECT_NE(std::string(e.what()).find("could not open shared-memory segment /dev/shm/collplan-" + job),
              std::string::npos)
        << e.what();
  }
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
}

TEST(ExecShmErrors, RankCountMismatchIsReported) {
  setenv("COLLPLAN_TIMEOUT_S", "5", 1);
  const std::string job = uniqueJob("mismatch");
  World first = World::shm(job.c_str(), 2, 0);
  try {
    World second = World::shm(job.c_str(), 3, 1);
    FAIL() << "expected a rank-count mismatch";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), COLLPLAN_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("was created for 2 ranks"), std::string::npos) << e.what();
  }
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
}

TEST(ExecShmErrors, WorldsOfOneProcessCleanUp) {
  const std::string job = uniqueJob("clean");
  {
    World world = World::shm(job.c_str(), 1, 0);
    Comm comm = world.comm(0);
    std::vector<double> x(1000, 2.0), y(1000);
    comm.allreduce(x.data(), y.data(), x.size(), COLLPLAN_MAX);
    EXPECT_EQ(y[999], 2.0);
    EXPECT_THROW(world.comm(0), Error);  // a cpu-shm world has one communicator
  }
  EXPECT_TRUE(leftovers(job).empty());
}

}  // namespace
