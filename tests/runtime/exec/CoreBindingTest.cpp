// CoreBinding: which CPU a rank gets, COLLPLAN_BIND parsing, and a real bind of a thread.
#include "runtime/backends/Backend.h"
#include "runtime/backends/cpu/CoreBinding.h"
#include "runtime/backends/cpu/RankPlacement.h"

#include <gtest/gtest.h>

#include <sched.h>

#include <cstdlib>
#include <thread>

using namespace collplan;

namespace {

TEST(CoreBinding, RanksGetTheAllowedCpusInTurn) {
  const std::vector<int> cpus = {2, 5, 7};
  EXPECT_EQ(cpuForRank(BindMode::Core, cpus, 0, 3), 2);
  EXPECT_EQ(cpuForRank(BindMode::Core, cpus, 2, 3), 7);
  EXPECT_EQ(cpuForRank(BindMode::Core, cpus, 1, 2), 5);
  EXPECT_EQ(cpuForRank(BindMode::Core, cpus, 3, 5), 2) << "more ranks than CPUs: round-robin";
  EXPECT_EQ(cpuForRank(BindMode::Core, cpus, 4, 5), 5);
  EXPECT_EQ(cpuForRank(BindMode::None, cpus, 0, 3), -1);
  EXPECT_EQ(cpuForRank(BindMode::Core, cpus, 3, 3), -1) << "rank out of range";
  EXPECT_EQ(cpuForRank(BindMode::Core, {}, 0, 1), -1);
  EXPECT_TRUE(ranksOwnTheirCores(BindMode::Core, cpus, 3));
  EXPECT_FALSE(ranksOwnTheirCores(BindMode::Core, cpus, 4));
  EXPECT_FALSE(ranksOwnTheirCores(BindMode::None, cpus, 2));
}

TEST(CoreBinding, EnvironmentValues) {
  BindMode mode = BindMode::None;
  unsetenv("COLLPLAN_BIND");
  EXPECT_FALSE(bindModeFromEnv(mode));
  EXPECT_EQ(mode, BindMode::Core);
  setenv("COLLPLAN_BIND", "none", 1);
  EXPECT_FALSE(bindModeFromEnv(mode));
  EXPECT_EQ(mode, BindMode::None);
  setenv("COLLPLAN_BIND", "numa", 1);
  auto why = bindModeFromEnv(mode);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "COLLPLAN_BIND must be core or none, got \"numa\"");
  unsetenv("COLLPLAN_BIND");
}

TEST(CoreBinding, BindsTheCallingThreadOnly) {
  const std::vector<int> before = allowedCpus();
  ASSERT_FALSE(before.empty());
  std::vector<int> inside;
  bool bound = false;
  std::thread([&] {
    bound = bindCallerToCpu(before.back());
    inside = allowedCpus();
  }).join();
  EXPECT_TRUE(bound);
  EXPECT_EQ(inside, std::vector<int>{before.back()});
  EXPECT_EQ(allowedCpus(), before) << "the caller's own mask is untouched";
  EXPECT_FALSE(bindCallerToCpu(-1));
}

// Ranks the user's threads or processes run poll before yielding when each can have a core of
// this process, yield at once when they outnumber the cores; COLLPLAN_WAIT_SPINS decides when
// set, and the cpu backends choose this way for the worlds the API opens.
TEST(CoreBinding, WaitPolicyFollowsTheJobShape) {
  unsetenv("COLLPLAN_WAIT_SPINS");
  const int cpus = int(allowedCpus().size());
  ASSERT_GE(cpus, 1);
  EXPECT_EQ(waitPolicyForRanksOfThisMachine(1).spins, kSpinsWhenBound);
  EXPECT_EQ(waitPolicyForRanksOfThisMachine(cpus).spins, kSpinsWhenBound);
  EXPECT_EQ(waitPolicyForRanksOfThisMachine(cpus + 1).spins, 0);
  for (const char *name : {"cpu-threads", "cpu-shm"}) {
    EXPECT_EQ(requireBackend(name).waitPolicyFor(cpus).spins, kSpinsWhenBound) << name;
    EXPECT_EQ(requireBackend(name).waitPolicyFor(cpus + 1).spins, 0) << name;
  }
  setenv("COLLPLAN_WAIT_SPINS", "7", 1);
  EXPECT_EQ(waitPolicyForRanksOfThisMachine(1).spins, 7);
  EXPECT_EQ(waitPolicyForRanksOfThisMachine(cpus + 1).spins, 7);
  unsetenv("COLLPLAN_WAIT_SPINS");
}

}  // namespace
