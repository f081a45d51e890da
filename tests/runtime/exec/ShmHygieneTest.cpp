// cpu-shm hygiene: what dead jobs leave is reaped by the next job of any name; segment names
// cannot be guessed and a squatted one is drawn again; jobs without a nonce never mix.
#include "ExecTestSupport.h"

#include "runtime/backends/cpu/ShmControl.h"
#include "runtime/backends/cpu/ShmJobId.h"
#include "runtime/backends/cpu/ShmSegment.h"
#include "runtime/exec/RuntimeError.h"

#include <gtest/gtest.h>

#include <csignal>
#include <regex>
#include <unistd.h>

using namespace collplan;
using namespace collplan::test;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// Runs a 2-rank job of `job` whose ranks make a call, allocate a region and are then killed
/// (SIGKILL: no exit handler runs), leaving every segment behind.
void killedJob(const std::string &job) {
  std::fflush(nullptr);
  runInProcesses(2, [&](int rank) {
    setenv("COLLPLAN_TIMEOUT_S", "30", 1);
    World world = World::shm(job.c_str(), 2, rank);
    Comm comm = world.comm(rank);
    comm.alloc(1 << 16);
    std::vector<float> x(100000, 1.0f);
    comm.allreduce(x.data(), x.data(), x.size(), COLLPLAN_SUM);
    kill(getpid(), SIGKILL);
    return 0;
  });
}

/// Segments of a job all of whose processes were killed stayed until a later job of the same
/// name, which random default names never bring; now any job's start removes them.
TEST(ShmReaping, AnyJobStartRemovesWhatADeadJobLeft) {
  const std::string dead = uniqueJob("reap-dead");
  killedJob(dead);
  const std::string other = uniqueJob("reap-other");
  World world = World::shm(other.c_str(), 1, 0);  // rank 0 of any job reaps
  EXPECT_EQ(shmLeftovers(dead), std::vector<std::string>{}) << "segments left in /dev/shm";
}

TEST(ShmReaping, ALiveJobAndOrphansOfIt) {
  const std::string job = uniqueJob("reap-live");
  World world = World::shm(job.c_str(), 1, 0);
  Comm comm = world.comm(0);
  comm.alloc(4096);
  const size_t before = shmLeftovers(job).size();
  ASSERT_GE(before, 2u) << "a control and a region segment";
  reapStaleJobs();
  EXPECT_EQ(shmLeftovers(job).size(), before) << "a live job was reaped";
  // A segment named for a job whose control segment is gone is an orphan: reaped.
  const std::string orphanJob = uniqueJob("reap-orphan");
  const std::string orphan = "/collplan-" + orphanJob + "-0123456789abcdef-r1-g" +
                             nonceText(newSegmentId());
  ShmSegment::create(orphan, 4096).unmap();
  const std::vector<std::string> reaped = reapStaleJobs();
  EXPECT_EQ(shmLeftovers(orphanJob), std::vector<std::string>{});
}

TEST(ShmSegmentNames, AreRandomAndASquattedNameIsDrawnAgain) {
  const std::string job = uniqueJob("names");
  World world = World::shm(job.c_str(), 1, 0);
  Comm comm = world.comm(0);
  comm.alloc(4096);
  comm.alloc(4096);
  const std::regex region(".*-r0-m[0-9a-f]{16}");
  size_t regions = 0;
  for (const std::string &name : shmLeftovers(job)) regions += std::regex_match(name, region);
  EXPECT_EQ(regions, 2u);
  // Someone created the first name drawn: the next one is used instead, not an error.
  const std::string squatted = "/collplan-" + uniqueJob("squatted");
  ShmSegment taken = ShmSegment::create(squatted, 4096);
  int attempts = 0;
  uint64_t id = 0;
  ShmSegment made = ShmSegment::createUnique(
      [&](uint64_t candidate) {
        return ++attempts == 1 ? squatted : squatted + "-" + nonceText(candidate);
      },
      4096, id);
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(made.name(), squatted + "-" + nonceText(id));
  ShmSegment::unlink(made.name());
  ShmSegment::unlink(squatted);
}

/// Forks a rank 0 of `job` (2 ranks) that holds its world until the test ends; with `nonce`
/// set as its launcher would.
pid_t holdRankZero(const std::string &job, const char *nonce) {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (nonce) {
      setenv("COLLPLAN_SHM_JOB", job.c_str(), 1);
      setenv(kNonceVariable, nonce, 1);
    }
    World world = World::shm(job.c_str(), 2, 0);
    const char c = 'r';
    if (write(ready[1], &c, 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char c = 0;
  close(ready[1]);
  const bool ok = read(ready[0], &c, 1) == 1;
  close(ready[0]);
  return ok ? pid : -1;
}

void stop(pid_t pid) {
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
}

/// A hand-started rank without a nonce joined whichever job of its name it found.
TEST(ShmNonce, ARankWithoutANonceIsRefusedByAJobWithOne) {
  const std::string job = uniqueJob("nonce-given");
  const pid_t holder = holdRankZero(job, "0123456789abcdef");
  ASSERT_GT(holder, 0);
  try {
    World world = World::shm(job.c_str(), 2, 1);
    ADD_FAILURE() << "joined";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "was started with a nonce (COLLPLAN_SHM_NONCE") &&
                contains(e.what(), "but rank 1 has none"))
        << e.what();
  }
  stop(holder);
}

/// Two hand-started jobs of one name without nonces gave wrong sums: a rank of the second job
/// took a rank of the first. Now the first job is marked when the second shows up, and its
/// ranks stop with a clear error instead of computing with a stranger.
TEST(ShmNonce, TwoJobsWithoutNoncesNeverComputeTogether) {
  setenv("COLLPLAN_TIMEOUT_S", "10", 1);
  const std::string job = uniqueJob("nonce-less");
  const pid_t firstRankZero = holdRankZero(job, nullptr);
  ASSERT_GT(firstRankZero, 0);
  World secondRankOne = World::shm(job.c_str(), 2, 1);  // joins the first job: nothing tells
  Comm comm = secondRankOne.comm(1);
  try {
    World secondRankZero = World::shm(job.c_str(), 2, 0);
    ADD_FAILURE() << "a second rank 0 of the name started";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "is already in use by another job")) << e.what();
  }
  int x = 1;
  try {
    comm.allreduce(&x, &x, 1, COLLPLAN_SUM);
    ADD_FAILURE() << "the mixed job ran a call";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), COLLPLAN_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(e.what(), "another job of the same name started while this one ran"))
        << e.what();
  }
  stop(firstRankZero);
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
}

}  // namespace
