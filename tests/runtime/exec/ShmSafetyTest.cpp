// cpu-shm safety: two jobs of one name, segments made by someone else, dead peers (and the
// wait check that finds them), leaks.
#include "ExecTestSupport.h"

#include "runtime/backends/cpu/ShmControl.h"
#include "runtime/backends/cpu/ShmJobId.h"
#include "runtime/exec/RuntimeError.h"
#include "runtime/exec/Wait.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace collplan;
using namespace collplan::test;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// The error World::shm(job, ranks, rank) throws ("" when it succeeds).
std::string attachError(const std::string &job, int ranks, int rank,
                        collplan_status_t *status = nullptr) {
  try {
    World world = World::shm(job.c_str(), ranks, rank);
  } catch (const Error &e) {
    if (status) *status = e.status();
    return e.what();
  }
  return "";
}

/// A child process that holds rank 0 of a 2-rank job until finish() (its first call never
/// comes, so it never waits for rank 1).
class RankZeroHolder {
public:
  explicit RankZeroHolder(const std::string &job) {
    int ready[2];
    if (pipe(ready) != 0 || pipe(finish_) != 0) throw std::runtime_error("pipe");
    std::fflush(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      int code = 0;
      try {
        World world = World::shm(job.c_str(), 2, 0);
        char c = 'r';
        code = write(ready[1], &c, 1) == 1 ? 0 : 1;
        code |= read(finish_[0], &c, 1) == 1 ? 0 : 1;
      } catch (const std::exception &e) {
        std::fprintf(stderr, "holder: %s\n", e.what());
        code = 2;
      }
      _exit(code);
    }
    close(ready[1]);
    char c = 0;
    ready_ = read(ready[0], &c, 1) == 1;
    close(ready[0]);
  }
  ~RankZeroHolder() { finish(); }
  bool ready() const { return ready_; }
  pid_t pid() const { return pid_; }
  /// Lets the holder destroy its world and exit; its exit status.
  int finish() {
    if (pid_ <= 0) return status_;
    const char c = 'f';
    if (write(finish_[1], &c, 1) != 1) kill(pid_, SIGKILL);
    close(finish_[1]);
    close(finish_[0]);
    waitpid(pid_, &status_, 0);
    pid_ = -1;
    return status_;
  }

private:
  int finish_[2] = {-1, -1};
  pid_t pid_ = -1;
  bool ready_ = false;
  int status_ = -1;
};

TEST(ShmJobIdentity, ASecondJobOfTheSameNameFailsClearly) {
  setenv("COLLPLAN_TIMEOUT_S", "10", 1);
  const std::string job = uniqueJob("id-twice");
  RankZeroHolder first(job);
  ASSERT_TRUE(first.ready());
  const std::string inUse = "cpu-shm job \"" + job + "\" is already in use by another job " +
                            "(created by pid " + std::to_string(first.pid());

  // A second rank 0 of the name: refused, the first job untouched.
  collplan_status_t status = COLLPLAN_SUCCESS;
  std::string error = attachError(job, 2, 0, &status);
  EXPECT_EQ(status, COLLPLAN_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(error, inUse)) << error;

  // A rank that its launcher gave another nonce: refused before it touches the job.
  setenv("COLLPLAN_SHM_JOB", job.c_str(), 1);
  setenv("COLLPLAN_SHM_NONCE", "0123456789abcdef", 1);
  error = attachError(job, 2, 1);
  EXPECT_TRUE(contains(error, inUse) && contains(error, "COLLPLAN_SHM_NONCE differs")) << error;
  unsetenv("COLLPLAN_SHM_NONCE");
  unsetenv("COLLPLAN_SHM_JOB");

  // Two processes as rank 1: the second is refused, naming the first.
  {
    World rankOne = World::shm(job.c_str(), 2, 1);
    const std::string result = runInProcesses(1, [&](int) {
      const std::string e = attachError(job, 2, 1);
      const std::string expected = "rank 1 of cpu-shm job \"" + job +
                                   "\" is already taken by pid " + std::to_string(getppid()) +
                                   " (still running)";
      if (contains(e, expected)) return 0;
      std::fprintf(stderr, "unexpected: %s\n", e.c_str());
      return 1;
    });
    EXPECT_EQ(result, "");
  }
  EXPECT_EQ(first.finish(), 0);
  EXPECT_TRUE(shmLeftovers(job).empty());
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
}

TEST(ShmJobIdentity, DefaultNamesAndNoncesAreRandom) {
  const std::string a = defaultJobName("job-"), b = defaultJobName("job-");
  EXPECT_EQ(a.size(), 4u + 16u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef", 4), std::string::npos) << a;
  EXPECT_NE(a, b);
  EXPECT_NE(newJobNonce(), newJobNonce());
  EXPECT_EQ(nonceText(0x00ab), "00000000000000ab");

  setenv("COLLPLAN_SHM_JOB", "named", 1);
  setenv("COLLPLAN_SHM_NONCE", "00000000000000ab", 1);
  EXPECT_EQ(nonceFromEnvironment("named"), 0xabu);
  EXPECT_EQ(nonceFromEnvironment("another"), 0u) << "the nonce belongs to COLLPLAN_SHM_JOB only";
  setenv("COLLPLAN_SHM_NONCE", "xyz", 1);
  try {
    nonceFromEnvironment("named");
    ADD_FAILURE() << "a malformed nonce was accepted";
  } catch (const RuntimeError &e) {
    EXPECT_TRUE(contains(e.what(), "COLLPLAN_SHM_NONCE must be 16 hex digits")) << e.what();
  }
  unsetenv("COLLPLAN_SHM_NONCE");
  unsetenv("COLLPLAN_SHM_JOB");
}

/// A control segment for a 2-rank job, made by hand the way an attacker (or a stale object)
/// would: a valid header whose rank 0 is this (live) process.
class ForgedControl {
public:
  explicit ForgedControl(const std::string &job) : name_("/collplan-" + job) {
    layout_ = ControlLayout::forRanks(2);
    fd_ = shm_open(name_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd_ < 0 || ftruncate(fd_, off_t(layout_.bytes)) != 0) throw std::runtime_error("forge");
    void *p = mmap(nullptr, layout_.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap");
    ShmHeader &h = *static_cast<ShmHeader *>(p);
    h.version = kControlLayoutVersion;
    h.ranks = 2;
    h.fifoCapacity = layout_.fifoCapacity;
    h.nonce = 1;
    RankRecord &zero = *reinterpret_cast<RankRecord *>(static_cast<std::byte *>(p) +
                                                        kControlHeaderBytes);
    const ProcessId self = thisProcess();
    zero.pid = self.pid;
    zero.startTime = self.startTime;
    zero.pidNamespace = self.pidNamespace;
    zero.ready = 1;
    h.magic = kControlMagic;
    munmap(p, layout_.bytes);
  }
  ~ForgedControl() {
    close(fd_);
    shm_unlink(name_.c_str());
  }
  int fd() const { return fd_; }
  const ControlLayout &layout() const { return layout_; }

private:
  std::string name_;
  ControlLayout layout_;
  int fd_ = -1;
};

TEST(ShmSegmentOwnership, AControlSegmentWithAnotherModeIsRefused) {
  setenv("COLLPLAN_TIMEOUT_S", "5", 1);
  const std::string job = uniqueJob("own-mode");
  ForgedControl forged(job);
  ASSERT_EQ(fchmod(forged.fd(), 0666), 0);
  const std::string refusal = "refusing shared-memory segment /dev/shm/collplan-" + job +
                              ": its mode is 0666, not 0600";
  collplan_status_t status = COLLPLAN_SUCCESS;
  std::string error = attachError(job, 2, 1, &status);
  EXPECT_EQ(status, COLLPLAN_ERROR_SYSTEM);
  EXPECT_TRUE(contains(error, refusal)) << error;
  error = attachError(job, 2, 0);
  EXPECT_TRUE(contains(error, refusal)) << error;
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
}

TEST(ShmSegmentOwnership, AControlSegmentOfAnotherSizeIsRefused) {
  setenv("COLLPLAN_TIMEOUT_S", "5", 1);
  const std::string job = uniqueJob("own-size");
  ForgedControl forged(job);
  const size_t bigger = forged.layout().bytes + 4096;
  ASSERT_EQ(ftruncate(forged.fd(), off_t(bigger)), 0);
  std::string error = attachError(job, 2, 1);
  EXPECT_TRUE(contains(error, "refusing shared-memory segment /dev/shm/collplan-" + job +
                                  ": it holds " + std::to_string(bigger) + " bytes, " +
                                  std::to_string(forged.layout().bytes) + " expected"))
      << error;
  ASSERT_EQ(ftruncate(forged.fd(), 100), 0);
  error = attachError(job, 2, 1);
  EXPECT_TRUE(contains(error, "it holds 100 bytes, at least 4096 expected")) << error;
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
}

TEST(ShmSegmentOwnership, AControlSegmentOfAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "only root can make an object another user owns";
  setenv("COLLPLAN_TIMEOUT_S", "5", 1);
  const std::string job = uniqueJob("own-user");
  ForgedControl forged(job);
  ASSERT_EQ(fchown(forged.fd(), 65534, 65534), 0);
  const std::string refusal = "refusing shared-memory segment /dev/shm/collplan-" + job +
                              ": it belongs to uid 65534, not to this user (uid 0)";
  std::string error = attachError(job, 2, 1);
  EXPECT_TRUE(contains(error, refusal)) << error;
  error = attachError(job, 2, 0);
  EXPECT_TRUE(contains(error, refusal)) << error;
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
}

TEST(WaitCheck, AThrowingCheckEndsAWaitLongBeforeTheTimeout) {
  WaitPolicy policy;
  policy.timeout = std::chrono::seconds(120);
  int calls = 0;
  policy.check = [&] {
    if (++calls == 3) throw RuntimeError(ErrorCode::System, "peer gone");
  };
  const std::atomic<uint64_t> never{0};
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(waitAtLeast(never, 1, policy), RuntimeError);
  EXPECT_EQ(calls, 3);
  calls = 0;
  Backoff backoff(policy);
  EXPECT_THROW(while (backoff.pause()) {}, RuntimeError);
  EXPECT_EQ(calls, 3);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

/// How rank 2 of the dead-peer tests goes away after the first call.
enum class Departure { ExitsWithoutLeaving, IsKilled, DestroysItsWorld };

class ShmDeadPeer : public ::testing::TestWithParam<Departure> {};

TEST_P(ShmDeadPeer, SurvivorsFailFastAndRemoveTheJob) {
  const std::string job = uniqueJob("dead-peer");
  std::fflush(nullptr);
  const std::string result = runInProcesses(3, [&](int rank) {
    setenv("COLLPLAN_TIMEOUT_S", "120", 1);  // what the survivors must not wait for
    World world = World::shm(job.c_str(), 3, rank);
    Comm comm = world.comm(rank);
    std::vector<double> x(50000, 1.0);
    comm.allreduce(x.data(), x.data(), x.size(), COLLPLAN_SUM);
    if (x[0] != 3.0) return 3;
    if (rank == 2) {
      if (GetParam() == Departure::ExitsWithoutLeaving) _exit(0);  // no destroy, no atexit
      if (GetParam() == Departure::IsKilled) kill(getpid(), SIGKILL);
      return 0;  // destroys its communicator and world
    }
    const auto start = std::chrono::steady_clock::now();
    try {
      comm.allreduce(x.data(), x.data(), x.size(), COLLPLAN_SUM);
    } catch (const Error &e) {
      const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
      const std::string what = e.what();
      std::fprintf(stderr, "rank %d after %.2f s: %s\n", rank, waited.count(), what.c_str());
      if (waited.count() > 10) return 4;  // found within 2 s on a quiet machine
      return e.status() == COLLPLAN_ERROR_SYSTEM && contains(what, "rank 2 (pid ") &&
                     contains(what, "before finishing call 2 (it finished 1): the job cannot go on")
                 ? 0
                 : 5;
    }
    return 6;
  });
  EXPECT_EQ(result, GetParam() == Departure::IsKilled ? "rank 2 failed (status 9); " : "");
  EXPECT_EQ(shmLeftovers(job).size(), 0u) << "segments left in /dev/shm";
}

INSTANTIATE_TEST_SUITE_P(Departures, ShmDeadPeer,
                         ::testing::Values(Departure::ExitsWithoutLeaving, Departure::IsKilled,
                                           Departure::DestroysItsWorld),
                         [](const ::testing::TestParamInfo<Departure> &info) {
                           switch (info.param) {
                           case Departure::ExitsWithoutLeaving: return "ExitsWithoutLeaving";
                           case Departure::IsKilled: return "IsKilled";
                           case Departure::DestroysItsWorld: return "DestroysItsWorld";
                           }
                           return "?";
                         });

// Ranks of one call with different roots exchange no message; the call board in the control
// segment shows the mismatch long before the timeout.
TEST(ShmCallArguments, MismatchedRootsFailFast) {
  const std::string job = uniqueJob("roots");
  std::fflush(nullptr);
  const std::string result = runInProcesses(3, [&](int rank) {
    setenv("COLLPLAN_TIMEOUT_S", "120", 1);  // what the ranks must not wait for
    World world = World::shm(job.c_str(), 3, rank);
    Comm comm = world.comm(rank);
    std::vector<float> x(1000, 1.0f);
    const auto start = std::chrono::steady_clock::now();
    try {
      comm.broadcast(x.data(), x.data(), x.size(), rank == 2 ? 2 : 0);
    } catch (const Error &e) {
      const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
      std::fprintf(stderr, "rank %d after %.2f s: %s\n", rank, waited.count(), e.what());
      if (waited.count() > 10) return 4;  // found within 2 s on a quiet machine
      return e.status() == COLLPLAN_ERROR_INVALID_ARGUMENT &&
                     contains(e.what(), "with different arguments: rank ") &&
                     contains(e.what(), "broadcast of f32 with root 2")
                 ? 0
                 : 5;
    }
    return rank == 1 ? 0 : 6;  // rank 1 may get root 0's data before the others fail
  });
  EXPECT_EQ(result, "");
}

TEST(ShmLeaks, AProcessThatExitsWithoutDestroyingLeavesNoSegments) {
  const std::string job = uniqueJob("leak-exit");
  std::fflush(nullptr);
  const std::string result = runInProcesses(2, [&](int rank) {
    setenv("COLLPLAN_TIMEOUT_S", "30", 1);
    World world = World::shm(job.c_str(), 2, rank);
    Comm comm = world.comm(rank);
    auto *shared = static_cast<float *>(comm.alloc(1 << 20));  // a region segment
    std::vector<float> heap(100000, 1.0f);                    // a staging segment
    comm.allreduce(shared, shared, 1000, COLLPLAN_SUM);
    comm.allreduce(heap.data(), heap.data(), heap.size(), COLLPLAN_SUM);
    std::exit(heap[0] == 2.0f ? 0 : 3);  // world and comm are never destroyed
    return 0;
  });
  EXPECT_EQ(result, "");
  EXPECT_EQ(shmLeftovers(job).size(), 0u) << "segments left in /dev/shm";
}

TEST(ShmLeaks, TheNextJobOfANameRemovesWhatADeadJobLeft) {
  const std::string job = uniqueJob("leak-stale");
  std::fflush(nullptr);
  const std::string killed = runInProcesses(2, [&](int rank) {
    setenv("COLLPLAN_TIMEOUT_S", "30", 1);
    World world = World::shm(job.c_str(), 2, rank);
    Comm comm = world.comm(rank);
    auto *shared = static_cast<float *>(comm.alloc(1 << 20));
    std::vector<float> heap(100000, 1.0f);
    comm.allreduce(shared, shared, 1000, COLLPLAN_SUM);
    comm.allreduce(heap.data(), heap.data(), heap.size(), COLLPLAN_SUM);
    kill(getpid(), SIGKILL);
    return 0;
  });
  EXPECT_TRUE(contains(killed, "rank 0 failed (status 9)") &&
              contains(killed, "rank 1 failed (status 9)"))
      << killed;
  // The dead job left its control, staging and region segments, unless a job of another test
  // running beside this one reaped them already (rank 0 of every job reaps dead jobs'
  // segments): so nothing is asserted of them here, only that none are left below.

  const std::string next = runInProcesses(1, [&](int) {
    World world = World::shm(job.c_str(), 1, 0);
    Comm comm = world.comm(0);
    std::vector<float> x(10, 1.0f);
    comm.allreduce(x.data(), x.data(), x.size(), COLLPLAN_SUM);
    return x[0] == 1.0f ? 0 : 3;
  });
  EXPECT_EQ(next, "");
  EXPECT_EQ(shmLeftovers(job).size(), 0u) << "segments left in /dev/shm";
}

}  // namespace
