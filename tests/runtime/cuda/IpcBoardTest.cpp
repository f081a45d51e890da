// Tests of the CUDA IPC handle board: ranks as threads and as processes, timeouts, bad openers.
#include "runtime/backends/cuda/IpcBoard.h"

#include "runtime/exec/RuntimeError.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace collplan::cuda {
namespace {

/// A job name no other test (or parallel ctest process) uses.
std::string uniqueJob() {
  static std::atomic<int> counter{0};
  return "cudaipc-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

bool boardExists(const std::string &job) {
  struct stat st;
  return ::stat(("/dev/shm" + IpcBoard::objectName(job)).c_str(), &st) == 0;
}

/// Removes the job's board when a test ends, and fails the test if it was still there.
struct NoLeftover {
  std::string job;
  ~NoLeftover() {
    EXPECT_FALSE(boardExists(job)) << "/dev/shm" << IpcBoard::objectName(job) << " left over";
    ShmSegment::unlink(IpcBoard::objectName(job));
  }
};

WaitPolicy policyOf(std::chrono::milliseconds timeout) {
  WaitPolicy policy;
  policy.timeout = timeout;
  return policy;
}

/// Rank `rank`'s entry: a fake handle whose bytes tell the rank and the byte.
IpcEntry entryOf(int rank) {
  IpcEntry entry;
  entry.device = rank % 2;
  entry.process = thisProcess();
  entry.arenaBytes = (uint64_t(rank) + 1) << 32;
  for (size_t i = 0; i < kIpcHandleBytes; ++i) entry.handle[i] = uint8_t(rank * 64 + i);
  return entry;
}

/// Whether `entries` is every rank's entryOf (pids aside), with a reason when not.
::testing::AssertionResult allEntries(const std::vector<IpcEntry> &entries, int ranks) {
  if (entries.size() != size_t(ranks))
    return ::testing::AssertionFailure() << entries.size() << " entries, " << ranks << " ranks";
  for (int r = 0; r < ranks; ++r) {
    const IpcEntry want = entryOf(r), &got = entries[size_t(r)];
    if (got.device != want.device || got.arenaBytes != want.arenaBytes ||
        std::memcmp(got.handle, want.handle, kIpcHandleBytes) != 0 || got.process.pid <= 0)
      return ::testing::AssertionFailure() << "rank " << r << "'s entry differs";
  }
  return ::testing::AssertionSuccess();
}

/// What one rank does: open, publish, wait for all; the error text, or "" with `entries` set.
std::string runRank(const std::string &job, int ranks, int rank, std::vector<IpcEntry> &entries,
                    const WaitPolicy &policy = policyOf(std::chrono::seconds(30))) {
  try {
    IpcBoard board = IpcBoard::open(job, ranks, rank, policy);
    board.publish(entryOf(rank));
    entries = board.waitForAll(policy);
    return "";
  } catch (const std::exception &e) {
    return e.what();
  }
}

template <typename F> std::string errorOf(F &&body, ErrorCode code) {
  try {
    body();
  } catch (const RuntimeError &e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(CudaIpcBoard, RanksAsThreadsSeeEveryEntry) {
  for (int ranks : {1, 2, 4}) {
    NoLeftover guard{uniqueJob()};
    std::vector<std::vector<IpcEntry>> seen(static_cast<size_t>(ranks));
    std::vector<std::string> errors(static_cast<size_t>(ranks));
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back(
          [&, r] { errors[size_t(r)] = runRank(guard.job, ranks, r, seen[size_t(r)]); });
    for (std::thread &t : threads) t.join();
    for (int r = 0; r < ranks; ++r) {
      EXPECT_EQ(errors[size_t(r)], "") << "rank " << r;
      EXPECT_TRUE(allEntries(seen[size_t(r)], ranks)) << "rank " << r << " of " << ranks;
    }
  }
}

TEST(CudaIpcBoard, RanksBeforeRankZeroWaitForTheBoard) {
  NoLeftover guard{uniqueJob()};
  const int ranks = 4;
  std::vector<std::vector<IpcEntry>> seen(ranks);
  std::vector<std::string> errors(ranks);
  std::vector<std::thread> threads;
  for (int r = 1; r < ranks; ++r)
    threads.emplace_back(
        [&, r] { errors[size_t(r)] = runRank(guard.job, ranks, r, seen[size_t(r)]); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(boardExists(guard.job));
  errors[0] = runRank(guard.job, ranks, 0, seen[0]);
  for (std::thread &t : threads) t.join();
  for (int r = 0; r < ranks; ++r) {
    EXPECT_EQ(errors[size_t(r)], "") << "rank " << r;
    EXPECT_TRUE(allEntries(seen[size_t(r)], ranks)) << "rank " << r;
  }
}

TEST(CudaIpcBoard, RanksAsProcessesSeeEveryEntry) {
  NoLeftover guard{uniqueJob()};
  const int ranks = 3;
  std::vector<pid_t> children;
  for (int r = 0; r < ranks; ++r) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::vector<IpcEntry> entries;
      const std::string error = runRank(guard.job, ranks, r, entries);
      if (!error.empty()) std::fprintf(stderr, "rank %d: %s\n", r, error.c_str());
      bool pidsDiffer = true;
      for (int p = 0; p < int(entries.size()); ++p)
        pidsDiffer = pidsDiffer && (p == r) == (entries[size_t(p)].process.pid == ::getpid());
      _exit(!error.empty() ? 2 : allEntries(entries, ranks) && pidsDiffer ? 0 : 3);
    }
    children.push_back(pid);
  }
  for (int r = 0; r < ranks; ++r) {
    int status = 0;
    ASSERT_EQ(::waitpid(children[size_t(r)], &status, 0), children[size_t(r)]);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "rank " << r << " ended with status " << status;
  }
}

TEST(CudaIpcBoard, RankZeroRemovesTheNameOnceAllAreReady) {
  NoLeftover guard{uniqueJob()};
  const WaitPolicy policy = policyOf(std::chrono::seconds(30));
  IpcBoard zero = IpcBoard::open(guard.job, 2, 0);
  IpcBoard one = IpcBoard::open(guard.job, 2, 1, policy);
  zero.publish(entryOf(0));
  one.publish(entryOf(1));
  EXPECT_TRUE(boardExists(guard.job));
  EXPECT_TRUE(allEntries(zero.waitForAll(policy), 2));
  EXPECT_FALSE(boardExists(guard.job));
  EXPECT_TRUE(allEntries(one.waitForAll(policy), 2));  // the mapping outlives the name
}

/// leave() waits for every rank, after the name is gone, and gives up (false) past the timeout.
TEST(CudaIpcBoard, LeaveWaitsForEveryRank) {
  NoLeftover guard{uniqueJob()};
  const WaitPolicy policy = policyOf(std::chrono::seconds(30));
  IpcBoard zero = IpcBoard::open(guard.job, 3, 0);
  IpcBoard one = IpcBoard::open(guard.job, 3, 1, policy);
  IpcBoard two = IpcBoard::open(guard.job, 3, 2, policy);
  for (IpcBoard *b : {&zero, &one, &two}) b->publish(entryOf(b->rank()));
  EXPECT_TRUE(allEntries(zero.waitForAll(policy), 3));
  EXPECT_FALSE(zero.leave(policyOf(std::chrono::milliseconds(30)))) << "left before rank 1 and 2";
  std::thread late([&] { EXPECT_TRUE(two.leave(policy)); });
  EXPECT_TRUE(one.leave(policy));
  late.join();
}

/// A rank whose process died without leaving does not hold its peers until the timeout.
TEST(CudaIpcBoard, LeaveDoesNotWaitForARankWhoseProcessDied) {
  NoLeftover guard{uniqueJob()};
  const WaitPolicy policy = policyOf(std::chrono::seconds(30));
  IpcBoard zero = IpcBoard::open(guard.job, 2, 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    IpcBoard one = IpcBoard::open(guard.job, 2, 1, policy);
    one.publish(entryOf(1));
    _exit(allEntries(one.waitForAll(policy), 2) ? 0 : 3);  // dies without leaving
  }
  zero.publish(entryOf(0));
  EXPECT_TRUE(allEntries(zero.waitForAll(policy), 2));
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "rank 1 ended with " << status;
  EXPECT_TRUE(zero.leave(policy)) << "waited out the timeout for a rank that had died";
}

TEST(CudaIpcBoard, TimeoutNamesTheRanksThatDidNotPublish) {
  NoLeftover guard{uniqueJob()};
  const WaitPolicy policy = policyOf(std::chrono::milliseconds(50));
  IpcBoard zero = IpcBoard::open(guard.job, 4, 0);
  IpcBoard one = IpcBoard::open(guard.job, 4, 1, policy);
  zero.publish(entryOf(0));
  one.publish(entryOf(1));
  const std::string tail = " CUDA IPC handles within 0.05 s: did every process of cuda job \"" +
                           guard.job + "\" start, with the same job name and rank count? (a " +
                           "rank that failed first says why in its own output)";
  EXPECT_EQ(errorOf([&] { one.waitForAll(policy); }, ErrorCode::Timeout),
            "ranks 2, 3 of 4 did not publish their" + tail);
  IpcBoard three = IpcBoard::open(guard.job, 4, 3, policy);
  IpcBoard two = IpcBoard::open(guard.job, 4, 2, policy);
  two.publish(entryOf(2));
  EXPECT_EQ(errorOf([&] { zero.waitForAll(policy); }, ErrorCode::Timeout),
            "rank 3 of 4 did not publish its" + tail);
  EXPECT_TRUE(boardExists(guard.job));
}

TEST(CudaIpcBoard, RankZeroRemovesTheNameWhenItFailsEarly) {
  NoLeftover guard{uniqueJob()};
  { IpcBoard zero = IpcBoard::open(guard.job, 2, 0); }
  EXPECT_FALSE(boardExists(guard.job));
  IpcBoard moved = IpcBoard::open(guard.job, 2, 0);
  IpcBoard target = std::move(moved);
  EXPECT_TRUE(boardExists(guard.job));  // the moved-from board removes nothing
  target = IpcBoard::open(uniqueJob() + "-other", 1, 0);  // the old board goes, with its name
  EXPECT_FALSE(boardExists(guard.job));
}

TEST(CudaIpcBoard, ARankWithoutRankZeroTimesOut) {
  NoLeftover guard{uniqueJob()};
  const WaitPolicy policy = policyOf(std::chrono::milliseconds(30));
  EXPECT_EQ(errorOf([&] { IpcBoard::open(guard.job, 2, 1, policy); }, ErrorCode::Timeout),
            "rank 1 of cuda job \"" + guard.job + "\" found no CUDA IPC board /dev/shm" +
                IpcBoard::objectName(guard.job) +
                " within 0.03 s: is rank 0 running, with the same job name?");
}

TEST(CudaIpcBoard, AnotherRankCountIsRefused) {
  NoLeftover guard{uniqueJob()};
  IpcBoard zero = IpcBoard::open(guard.job, 4, 0);
  EXPECT_EQ(errorOf([&] { IpcBoard::open(guard.job, 3, 1); }, ErrorCode::InvalidArgument),
            "cuda job \"" + guard.job + "\": its CUDA IPC board was created for 4 ranks but " +
                "rank 1 expects 3: every process of a job must pass the same rank count");
}

TEST(CudaIpcBoard, AnExistingBoardIsRefusedByRankZero) {
  NoLeftover guard{uniqueJob()};
  IpcBoard first = IpcBoard::open(guard.job, 2, 0);
  EXPECT_EQ(errorOf([&] { IpcBoard::open(guard.job, 2, 0); }, ErrorCode::InvalidArgument),
            "cuda job \"" + guard.job + "\": its CUDA IPC board /dev/shm" +
                IpcBoard::objectName(guard.job) + " already exists: another job of this name " +
                "is starting, or one that failed left it behind; pick another job name, or " +
                "remove it if no such job runs");
}

TEST(CudaIpcBoard, PublishingTwiceIsRefused) {
  NoLeftover guard{uniqueJob()};
  IpcBoard zero = IpcBoard::open(guard.job, 2, 0);
  IpcBoard one = IpcBoard::open(guard.job, 2, 1);
  IpcBoard impostor = IpcBoard::open(guard.job, 2, 1);
  one.publish(entryOf(1));
  const std::string message = "rank 1 of cuda job \"" + guard.job + "\" already published its " +
                              "CUDA IPC handles: publish was called twice, or two processes " +
                              "were started as rank 1";
  EXPECT_EQ(errorOf([&] { one.publish(entryOf(1)); }, ErrorCode::InvalidArgument), message);
  EXPECT_EQ(errorOf([&] { impostor.publish(entryOf(1)); }, ErrorCode::InvalidArgument), message);
}

TEST(CudaIpcBoard, BadArgumentsAreRefused) {
  const std::string job = uniqueJob();
  auto refused = [&](const std::string &name, int ranks, int rank) {
    return errorOf([&] { IpcBoard::open(name, ranks, rank); }, ErrorCode::InvalidArgument);
  };
  EXPECT_EQ(refused("", 2, 0), "cuda job name must be 1 to 200 characters, got 0");
  EXPECT_EQ(refused(std::string(201, 'j'), 2, 0),
            "cuda job name must be 1 to 200 characters, got 201");
  EXPECT_EQ(refused("a/b", 2, 0),
            "cuda job name \"a/b\" may only contain letters, digits, '.', '_' and '-'");
  EXPECT_EQ(refused(job, 0, 0), "cuda job \"" + job + "\" needs at least 1 rank, got 0");
  EXPECT_EQ(refused(job, 2, 2), "cuda job \"" + job + "\": rank 2 is out of range (0 to 1)");
  EXPECT_EQ(refused(job, 2, -1), "cuda job \"" + job + "\": rank -1 is out of range (0 to 1)");
  EXPECT_FALSE(boardExists(job));
}

}  // namespace
}  // namespace collplan::cuda
