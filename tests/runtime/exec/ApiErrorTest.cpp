// The C API rejects every bad argument with a clear code and message, and never crashes.
#include "collplan.h"
#include "collplan.hpp"
#include "runtime/backends/Backend.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <type_traits>
#include <thread>
#include <vector>
#include <unistd.h>

namespace {

::testing::AssertionResult failsWith(collplan_status_t got, collplan_status_t want,
                                     const std::string &messagePart) {
  if (got != want)
    return ::testing::AssertionFailure()
           << "status " << collplan_error_string(got) << ", expected "
           << collplan_error_string(want) << " (" << collplan_last_error() << ")";
  const std::string message = collplan_last_error();
  if (message.find(messagePart) == std::string::npos)
    return ::testing::AssertionFailure() << "message \"" << message << "\" lacks \"" << messagePart
                                         << "\"";
  return ::testing::AssertionSuccess();
}

collplan_config_t threadsConfig(int ranks) {
  collplan_config_t c;
  collplan_config_init(&c);
  c.backend = "cpu-threads";
  c.ranks = ranks;
  return c;
}

TEST(ExecApi, WorldCreationErrors) {
  collplan_world_t w = nullptr;
  EXPECT_TRUE(failsWith(collplan_world_create(nullptr, &w), COLLPLAN_ERROR_NULL_POINTER, "config"));
  collplan_config_t c = threadsConfig(2);
  EXPECT_TRUE(failsWith(collplan_world_create(&c, nullptr), COLLPLAN_ERROR_NULL_POINTER, "world"));
  c.backend = nullptr;
  EXPECT_TRUE(failsWith(collplan_world_create(&c, &w), COLLPLAN_ERROR_NULL_POINTER, "backend"));
  c.backend = "gpu-magic";
  EXPECT_TRUE(failsWith(collplan_world_create(&c, &w), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "unknown backend \"gpu-magic\" (expected one of: " +
                            collplan::backendNames() + ")"));
  c.backend = "sim";  // registered, but it moves no data
  EXPECT_TRUE(failsWith(collplan_world_create(&c, &w), COLLPLAN_ERROR_UNSUPPORTED,
                        "the sim backend times plans on a topology and moves no data"));
  c = threadsConfig(0);
  EXPECT_TRUE(failsWith(collplan_world_create(&c, &w), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "ranks must be between 1"));
  c = threadsConfig(2);
  c.rank = 1;
  EXPECT_TRUE(failsWith(collplan_world_create(&c, &w), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "rank must be -1"));
  c = threadsConfig(2);
  c.backend = "cpu-shm";
  c.rank = 0;
  EXPECT_TRUE(failsWith(collplan_world_create(&c, &w), COLLPLAN_ERROR_NULL_POINTER, "shm_job"));
  c.shm_job = "bad/name";
  EXPECT_TRUE(failsWith(collplan_world_create(&c, &w), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "may only contain"));
  c.shm_job = "ok";
  c.rank = 2;
  EXPECT_TRUE(failsWith(collplan_world_create(&c, &w), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "rank in [0, 2)"));
  c = threadsConfig(2);
  c.bundle_file = "/nonexistent/bundle.json";
  EXPECT_TRUE(failsWith(collplan_world_create(&c, &w), COLLPLAN_ERROR_FILE, "/nonexistent/bundle.json"));
  c = threadsConfig(2);
  c.topology_file = "/nonexistent/topo.json";
  EXPECT_TRUE(failsWith(collplan_world_create(&c, &w), COLLPLAN_ERROR_FILE, "/nonexistent/topo.json"));
  EXPECT_EQ(w, nullptr);
}

TEST(ExecApi, CommunicatorErrors) {
  collplan_config_t c = threadsConfig(2);
  collplan_world_t w = nullptr;
  ASSERT_EQ(collplan_world_create(&c, &w), COLLPLAN_SUCCESS);
  collplan_comm_t comm = nullptr;
  EXPECT_TRUE(failsWith(collplan_comm_create(nullptr, 0, &comm), COLLPLAN_ERROR_NULL_POINTER, "world"));
  EXPECT_TRUE(failsWith(collplan_comm_create(w, 0, nullptr), COLLPLAN_ERROR_NULL_POINTER, "comm"));
  EXPECT_TRUE(failsWith(collplan_comm_create(w, 2, &comm), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "rank 2 is out of range for 2 ranks"));
  ASSERT_EQ(collplan_comm_create(w, 0, &comm), COLLPLAN_SUCCESS);
  collplan_comm_t again = nullptr;
  EXPECT_TRUE(failsWith(collplan_comm_create(w, 0, &again), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "already has a communicator"));
  EXPECT_TRUE(failsWith(collplan_world_destroy(w), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "destroy them first"));
  int rank = -1, size = -1;
  EXPECT_EQ(collplan_comm_rank(comm, &rank), COLLPLAN_SUCCESS);
  EXPECT_EQ(collplan_comm_size(comm, &size), COLLPLAN_SUCCESS);
  EXPECT_EQ(rank, 0);
  EXPECT_EQ(size, 2);
  EXPECT_TRUE(failsWith(collplan_comm_rank(comm, nullptr), COLLPLAN_ERROR_NULL_POINTER, "rank"));
  EXPECT_TRUE(failsWith(collplan_run_threads(w, nullptr, nullptr), COLLPLAN_ERROR_NULL_POINTER, "fn"));
  EXPECT_EQ(collplan_comm_destroy(comm), COLLPLAN_SUCCESS);
  EXPECT_EQ(collplan_world_destroy(w), COLLPLAN_SUCCESS);
  EXPECT_EQ(collplan_world_destroy(nullptr), COLLPLAN_SUCCESS);
}

TEST(ExecApi, MemAllocErrorsAndOwnership) {
  for (const char *backend : {"cpu-threads", "cpu-shm"}) {
    collplan_config_t c = threadsConfig(1);
    c.backend = backend;
    const std::string job = "mem-errors-" + std::to_string(getpid());
    if (std::string(backend) == "cpu-shm") c.rank = 0, c.shm_job = job.c_str();
    collplan_world_t w = nullptr;
    ASSERT_EQ(collplan_world_create(&c, &w), COLLPLAN_SUCCESS) << collplan_last_error();
    collplan_comm_t comm = nullptr;
    ASSERT_EQ(collplan_comm_create(w, 0, &comm), COLLPLAN_SUCCESS);
    void *p = nullptr;
    EXPECT_TRUE(failsWith(collplan_mem_alloc(nullptr, 8, &p), COLLPLAN_ERROR_NULL_POINTER, "comm"));
    EXPECT_TRUE(failsWith(collplan_mem_alloc(comm, 8, nullptr), COLLPLAN_ERROR_NULL_POINTER, "ptr"));
    EXPECT_TRUE(failsWith(collplan_mem_alloc(comm, 0, &p), COLLPLAN_ERROR_INVALID_ARGUMENT,
                          "cannot allocate 0 bytes"));
    EXPECT_EQ(p, nullptr);
    // Sizes whose page rounding would wrap around to a tiny buffer.
    for (size_t huge : {SIZE_MAX, SIZE_MAX - 100, size_t(PTRDIFF_MAX) + 1})
      EXPECT_TRUE(failsWith(collplan_mem_alloc(comm, huge, &p), COLLPLAN_ERROR_INVALID_ARGUMENT,
                            "bytes: more than PTRDIFF_MAX"));
    EXPECT_EQ(p, nullptr);
    ASSERT_EQ(collplan_mem_alloc(comm, 1000, &p), COLLPLAN_SUCCESS);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u) << backend;
    int local = 0;
    EXPECT_TRUE(failsWith(collplan_mem_free(comm, &local), COLLPLAN_ERROR_INVALID_ARGUMENT,
                          "was not returned by collplan_mem_alloc"));
    EXPECT_TRUE(failsWith(collplan_mem_free(comm, static_cast<char *>(p) + 8),
                          COLLPLAN_ERROR_INVALID_ARGUMENT, "was not returned"));
    EXPECT_EQ(collplan_mem_free(comm, nullptr), COLLPLAN_SUCCESS);
    EXPECT_EQ(collplan_mem_free(comm, p), COLLPLAN_SUCCESS);
    EXPECT_TRUE(failsWith(collplan_mem_free(comm, p), COLLPLAN_ERROR_INVALID_ARGUMENT, "or was freed"));
    void *kept = nullptr;  // left for the communicator to free
    ASSERT_EQ(collplan_mem_alloc(comm, size_t(1) << 20, &kept), COLLPLAN_SUCCESS);
    static_cast<char *>(kept)[(size_t(1) << 20) - 1] = 1;
    EXPECT_EQ(collplan_comm_destroy(comm), COLLPLAN_SUCCESS);
    EXPECT_EQ(collplan_world_destroy(w), COLLPLAN_SUCCESS);
  }
}

TEST(ExecApi, MalformedEnvironmentSettingsNameTheVariable) {
  const struct {
    const char *name, *value, *message;
  } cases[] = {
      {"COLLPLAN_TIMEOUT_S", "soon", "COLLPLAN_TIMEOUT_S must be a number of seconds from "
                                     "0.001 to 1000000, or 0 for no limit, got \"soon\""},
      // Each of these was taken as "no limit", or overflowed, and the wait never ended.
      {"COLLPLAN_TIMEOUT_S", "nan", "COLLPLAN_TIMEOUT_S must be a number of seconds"},
      {"COLLPLAN_TIMEOUT_S", "inf", "COLLPLAN_TIMEOUT_S must be a number of seconds"},
      {"COLLPLAN_TIMEOUT_S", "1e300", "got \"1e300\""},
      {"COLLPLAN_TIMEOUT_S", "1e-300", "got \"1e-300\""},
      {"COLLPLAN_TIMEOUT_S", "0.0001", "got \"0.0001\""},
      {"COLLPLAN_TIMEOUT_S", "-0", "got \"-0\""},
      {"COLLPLAN_TIMEOUT_S", "0x10", "got \"0x10\""},
      {"COLLPLAN_TIMEOUT_S", " 5", "got \" 5\""},
      {"COLLPLAN_WAIT_SPINS", "-1",
       "COLLPLAN_WAIT_SPINS must be a number of polls from 0 to 1000000, got \"-1\""},
      {"COLLPLAN_WAIT_SPINS", "1000001", "got \"1000001\""},
      {"COLLPLAN_WAIT_YIELD_US", "1e3",
       "COLLPLAN_WAIT_YIELD_US must be a number of microseconds from 0 to 1000000, got \"1e3\""},
      // Yielding this long ignored a 3 s timeout.
      {"COLLPLAN_WAIT_YIELD_US", "1000000000000", "got \"1000000000000\""},
      {"COLLPLAN_STREAMING_COPY_MIN", "16M",
       "COLLPLAN_STREAMING_COPY_MIN must be a number of bytes, got \"16M\""},
  };
  for (const auto &c : cases) {
    const char *old = std::getenv(c.name);
    const std::string saved = old ? old : "";
    setenv(c.name, c.value, 1);
    collplan_config_t config = threadsConfig(2);
    collplan_world_t w = nullptr;
    EXPECT_TRUE(failsWith(collplan_world_create(&config, &w), COLLPLAN_ERROR_INVALID_ARGUMENT,
                          c.message));
    if (old) setenv(c.name, saved.c_str(), 1);
    else unsetenv(c.name);
  }
}

/// Sets (or, with null, unsets) an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    const char *old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) saved_ = old;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, saved_.c_str(), 1);
    else unsetenv(name_);
  }

private:
  const char *name_;
  bool had_ = false;
  std::string saved_;
};

/// collplan_config_from_env overrides only what the environment sets: a program that gives its
/// own defaults runs without collplan-shm-launch, and a launched one takes the launcher's.
TEST(ExecApi, ConfigFromEnvKeepsTheCallersDefaults) {
  ScopedEnv backend("COLLPLAN_BACKEND", nullptr), ranks("COLLPLAN_RANKS", nullptr);
  ScopedEnv bundle("COLLPLAN_BUNDLE", nullptr), topology("COLLPLAN_TOPOLOGY", nullptr);
  collplan_config_t config = threadsConfig(3);
  ASSERT_EQ(collplan_config_from_env(&config), COLLPLAN_SUCCESS);
  EXPECT_STREQ(config.backend, "cpu-threads");
  EXPECT_EQ(config.ranks, 3);
  EXPECT_EQ(config.bundle_file, nullptr);
  {
    ScopedEnv launched("COLLPLAN_RANKS", "5");
    ASSERT_EQ(collplan_config_from_env(&config), COLLPLAN_SUCCESS);
    EXPECT_EQ(config.ranks, 5);
  }
  collplan_config_t empty;
  collplan_config_init(&empty);
  EXPECT_TRUE(failsWith(collplan_config_from_env(&empty), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "COLLPLAN_BACKEND is not set and config->backend is NULL: set one"));
  collplan_config_t shm;
  collplan_config_init(&shm);
  shm.backend = "cpu-shm";
  ScopedEnv rank("COLLPLAN_RANK", nullptr);
  EXPECT_TRUE(failsWith(collplan_config_from_env(&shm), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "COLLPLAN_RANK is not set and config->rank is -1: a cpu-shm process "
                        "needs its rank"));
  ScopedEnv badRanks("COLLPLAN_RANKS", "four");
  EXPECT_TRUE(failsWith(collplan_config_from_env(&config), COLLPLAN_ERROR_INVALID_ARGUMENT,
                        "COLLPLAN_RANKS must be an integer, got \"four\""));
}

/// Destroying a communicator while another thread is in a call on it was a heap-use-after-free
/// that returned SUCCESS; it is refused, and the call finishes. (A destroy that comes before the
/// thread's call began succeeds, and the call is refused as not live: that trial is repeated.)
TEST(ExecApi, DestroyingACommunicatorInACallIsRefused) {
  bool refusedInCall = false;
  for (int trial = 0; trial < 20 && !refusedInCall; ++trial) {
    collplan_config_t config = threadsConfig(2);
    collplan_world_t w = nullptr;
    ASSERT_EQ(collplan_world_create(&config, &w), COLLPLAN_SUCCESS);
    collplan_comm_t c0 = nullptr, c1 = nullptr;
    ASSERT_EQ(collplan_comm_create(w, 0, &c0), COLLPLAN_SUCCESS);
    ASSERT_EQ(collplan_comm_create(w, 1, &c1), COLLPLAN_SUCCESS);
    float x0 = 1, y0 = 0, x1 = 2, y1 = 0;
    std::atomic<bool> started{false};
    collplan_status_t called = COLLPLAN_SUCCESS;
    std::thread rank0([&] {
      started = true;
      called = collplan_allreduce(c0, &x0, &y0, 1, COLLPLAN_F32, COLLPLAN_SUM);
    });
    while (!started) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(50 * (trial + 1)));
    const collplan_status_t destroyed = collplan_comm_destroy(c0);
    if (destroyed != COLLPLAN_SUCCESS) {
      EXPECT_TRUE(failsWith(destroyed, COLLPLAN_ERROR_INVALID_ARGUMENT,
                            "comm is in use by 1 call(s) on other threads"));
      refusedInCall = true;
      EXPECT_EQ(collplan_allreduce(c1, &x1, &y1, 1, COLLPLAN_F32, COLLPLAN_SUM), COLLPLAN_SUCCESS);
    }
    rank0.join();
    if (refusedInCall) {
      EXPECT_EQ(called, COLLPLAN_SUCCESS) << collplan_last_error();
      EXPECT_EQ(y0, 3.0f);
      EXPECT_EQ(y1, 3.0f);
      EXPECT_EQ(collplan_comm_destroy(c0), COLLPLAN_SUCCESS);
    } else {
      EXPECT_EQ(called, COLLPLAN_ERROR_INVALID_ARGUMENT);
    }
    EXPECT_EQ(collplan_comm_destroy(c1), COLLPLAN_SUCCESS);
    EXPECT_EQ(collplan_world_destroy(w), COLLPLAN_SUCCESS);
  }
  EXPECT_TRUE(refusedInCall);
}

/// Numbers of seconds in range, and 0 (no limit), are accepted.
TEST(ExecApi, ValidTimeoutsAreAccepted) {
  for (const char *value : {"0", "0.001", "2.5", "1e2", "1000000", "00"}) {
    setenv("COLLPLAN_TIMEOUT_S", value, 1);
    collplan_config_t config = threadsConfig(1);
    collplan_world_t w = nullptr;
    EXPECT_EQ(collplan_world_create(&config, &w), COLLPLAN_SUCCESS)
        << value << ": " << collplan_last_error();
    collplan_world_destroy(w);
  }
  unsetenv("COLLPLAN_TIMEOUT_S");
}

/// Argument errors are found before any communication, so one rank can probe them alone.
TEST(ExecApi, CollectiveArgumentErrors) {
  collplan::World world = collplan::World::threads(2);
  collplan::Comm comm = world.comm(1);
  collplan_comm_t h = comm.get();
  std::vector<float> a(64), b(64);
  EXPECT_TRUE(failsWith(collplan_allreduce(nullptr, a.data(), b.data(), 4, COLLPLAN_F32, COLLPLAN_SUM),
                        COLLPLAN_ERROR_NULL_POINTER, "comm is NULL"));
  EXPECT_TRUE(failsWith(collplan_allreduce(h, nullptr, b.data(), 4, COLLPLAN_F32, COLLPLAN_SUM),
                        COLLPLAN_ERROR_NULL_POINTER,
                        "allreduce on rank 1 of 2: send buffer is NULL but the call uses 16 bytes (4 x f32)"));
  EXPECT_TRUE(failsWith(collplan_allgather(h, a.data(), nullptr, 4, COLLPLAN_F32),
                        COLLPLAN_ERROR_NULL_POINTER, "recv buffer is NULL but the call uses 32 bytes"));
  const char *bytes = reinterpret_cast<const char *>(a.data());
  EXPECT_TRUE(failsWith(collplan_allreduce(h, bytes + 1, b.data(), 4, COLLPLAN_F32, COLLPLAN_SUM),
                        COLLPLAN_ERROR_MISALIGNED_BUFFER, "not aligned to the 4-byte size of f32"));
  EXPECT_TRUE(failsWith(collplan_allreduce(h, a.data(), reinterpret_cast<char *>(b.data()) + 2, 4,
                                           COLLPLAN_F64, COLLPLAN_SUM),
                        COLLPLAN_ERROR_MISALIGNED_BUFFER, "recv buffer"));
  EXPECT_TRUE(failsWith(collplan_allreduce(h, a.data(), b.data(), 4, collplan_dtype_t(99), COLLPLAN_SUM),
                        COLLPLAN_ERROR_INVALID_ARGUMENT, "unknown dtype 99"));
  EXPECT_TRUE(failsWith(collplan_allreduce(h, a.data(), b.data(), 4, COLLPLAN_F32, collplan_op_t(7)),
                        COLLPLAN_ERROR_INVALID_ARGUMENT, "unknown reduction op 7"));
  EXPECT_TRUE(failsWith(collplan_broadcast(h, a.data(), b.data(), 4, COLLPLAN_F32, 2),
                        COLLPLAN_ERROR_INVALID_ARGUMENT, "root 2 is out of range for 2 ranks"));
  EXPECT_TRUE(failsWith(collplan_reduce(h, a.data(), b.data(), 4, COLLPLAN_F32, COLLPLAN_SUM, -1),
                        COLLPLAN_ERROR_INVALID_ARGUMENT, "root -1"));
  EXPECT_TRUE(failsWith(collplan_allreduce(h, a.data(), b.data(), SIZE_MAX / 2, COLLPLAN_F32, COLLPLAN_SUM),
                        COLLPLAN_ERROR_INVALID_ARGUMENT, "overflows"));

  collplan_call_t call = {};
  call.collective = COLLPLAN_ALLGATHER;
  call.send = a.data();
  call.send_bytes = 16;
  call.recv = b.data();
  call.recv_bytes = 31;
  call.count = 4;
  call.dtype = COLLPLAN_F32;
  EXPECT_TRUE(failsWith(collplan_call(h, &call), COLLPLAN_ERROR_BUFFER_TOO_SMALL,
                        "recv buffer holds 31 bytes but the call uses 32 bytes"));
  call.send_bytes = 15;
  EXPECT_TRUE(failsWith(collplan_call(h, &call), COLLPLAN_ERROR_BUFFER_TOO_SMALL, "send buffer holds 15"));
  call.collective = collplan_collective_t(42);
  EXPECT_TRUE(failsWith(collplan_call(h, &call), COLLPLAN_ERROR_INVALID_ARGUMENT, "unknown collective 42"));
  EXPECT_TRUE(failsWith(collplan_call(h, nullptr), COLLPLAN_ERROR_NULL_POINTER, "call is NULL"));

  // Count 0 moves nothing: NULL buffers are fine and no peer is needed.
  EXPECT_EQ(collplan_allreduce(h, nullptr, nullptr, 0, COLLPLAN_F32, COLLPLAN_SUM), COLLPLAN_SUCCESS);
  // Buffers a rank does not use may be NULL: a non-root's broadcast send, reduce recv.
  // (Checked without running: count 0 short-circuits after validation.)
  EXPECT_EQ(collplan_reduce(h, a.data(), nullptr, 0, COLLPLAN_F32, COLLPLAN_SUM, 0), COLLPLAN_SUCCESS);
}

TEST(ExecApi, NonRootsMayPassNullForBuffersTheyDoNotUse) {
  collplan::World world = collplan::World::threads(3);
  world.runThreads([](collplan::Comm &comm) {
    std::vector<int32_t> data(5, comm.rank() == 1 ? 7 : 0), out(5);
    const bool root = comm.rank() == 1;
    comm.broadcast(root ? data.data() : nullptr, data.data(), 5, COLLPLAN_I32, 1);
    for (int32_t v : data) ASSERT_EQ(v, 7);
    comm.reduce(data.data(), root ? out.data() : nullptr, 5, COLLPLAN_I32, COLLPLAN_SUM, 1);
    if (root) {
      for (int32_t v : out) ASSERT_EQ(v, 21);
    }
  });
}

TEST(ExecApi, ErrorStringsAndRunThreadsFailures) {
  for (int s = 0; s <= 10; ++s)
    EXPECT_NE(std::string(collplan_error_string(collplan_status_t(s))).find("COLLPLAN_"),
              std::string::npos);
  EXPECT_EQ(collplan_dtype_size(COLLPLAN_BF16), 2u);
  EXPECT_EQ(collplan_dtype_size(collplan_dtype_t(12)), 0u);

  collplan_config_t c = threadsConfig(3);
  collplan_world_t w = nullptr;
  ASSERT_EQ(collplan_world_create(&c, &w), COLLPLAN_SUCCESS);
  auto failOnRank2 = [](collplan_comm_t comm, void *) -> collplan_status_t {
    int rank = 0;
    collplan_comm_rank(comm, &rank);
    if (rank != 2) return COLLPLAN_SUCCESS;
    return collplan_allreduce(comm, nullptr, nullptr, 3, COLLPLAN_F32, COLLPLAN_SUM);
  };
  EXPECT_TRUE(failsWith(collplan_run_threads(w, failOnRank2, nullptr), COLLPLAN_ERROR_NULL_POINTER,
                        "collplan_run_threads: rank 2: collplan_allreduce: allreduce on rank 2"));
  EXPECT_EQ(collplan_world_destroy(w), COLLPLAN_SUCCESS);
}

/// Ranks that disagree on the count get an error naming the mismatch, not corrupted memory.
TEST(ExecApi, MismatchedCountsAreReported) {
  setenv("COLLPLAN_TIMEOUT_S", "5", 1);
  collplan::World world = collplan::World::threads(2);
  std::vector<collplan_status_t> status(2);
  std::vector<std::string> message(2);
  world.runThreads([&](collplan::Comm &comm) {
    std::vector<float> a(40, 1.0f), b(40);
    const size_t count = comm.rank() == 0 ? 10 : 20;
    status[size_t(comm.rank())] =
        collplan_allreduce(comm.get(), a.data(), b.data(), count, COLLPLAN_F32, COLLPLAN_SUM);
    message[size_t(comm.rank())] = collplan_last_error();
    // The communicator refuses further calls instead of running out of step.
    if (status[size_t(comm.rank())] != COLLPLAN_SUCCESS) {
      EXPECT_TRUE(failsWith(collplan_barrier(comm.get()), COLLPLAN_ERROR_INVALID_ARGUMENT,
                            "unusable after an earlier failure"));
    }
  });
  bool reported = false;
  for (int r = 0; r < 2; ++r)
    if (status[size_t(r)] == COLLPLAN_ERROR_INVALID_ARGUMENT &&
        message[size_t(r)].find("different counts or dtypes") != std::string::npos)
      reported = true;
  EXPECT_TRUE(reported) << message[0] << " | " << message[1];
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
}

// Destroyed, double-destroyed and made-up handles are refused with an error, never used.
TEST(ExecApi, HandlesSurviveMisuse) {
  collplan_config_t c = threadsConfig(2);
  collplan_world_t w = nullptr;
  ASSERT_EQ(collplan_world_create(&c, &w), COLLPLAN_SUCCESS);
  collplan_comm_t comm = nullptr;
  ASSERT_EQ(collplan_comm_create(w, 0, &comm), COLLPLAN_SUCCESS);
  ASSERT_EQ(collplan_comm_destroy(comm), COLLPLAN_SUCCESS);
  int rank = -1;
  const char *stale = "comm is not a live communicator: it was destroyed, or not made by this library";
  EXPECT_TRUE(failsWith(collplan_comm_rank(comm, &rank), COLLPLAN_ERROR_INVALID_ARGUMENT, stale));
  EXPECT_TRUE(failsWith(collplan_comm_destroy(comm), COLLPLAN_ERROR_INVALID_ARGUMENT, stale));
  EXPECT_TRUE(failsWith(collplan_barrier(comm), COLLPLAN_ERROR_INVALID_ARGUMENT, stale));
  void *p = nullptr;
  EXPECT_TRUE(failsWith(collplan_mem_alloc(comm, 8, &p), COLLPLAN_ERROR_INVALID_ARGUMENT, stale));
  EXPECT_TRUE(failsWith(collplan_mem_free(comm, p), COLLPLAN_ERROR_INVALID_ARGUMENT, stale));
  EXPECT_STREQ(collplan_comm_last_algorithm(comm), "");
  int bogus = 0;
  EXPECT_TRUE(failsWith(collplan_comm_size(reinterpret_cast<collplan_comm_t>(&bogus), &rank),
                        COLLPLAN_ERROR_INVALID_ARGUMENT, stale));
  ASSERT_EQ(collplan_world_destroy(w), COLLPLAN_SUCCESS);
  const char *gone = "world is not a live world";
  EXPECT_TRUE(failsWith(collplan_world_ranks(w, &rank), COLLPLAN_ERROR_INVALID_ARGUMENT, gone));
  EXPECT_TRUE(failsWith(collplan_world_destroy(w), COLLPLAN_ERROR_INVALID_ARGUMENT, gone));
  EXPECT_TRUE(failsWith(collplan_comm_create(w, 1, &comm), COLLPLAN_ERROR_INVALID_ARGUMENT, gone));
  EXPECT_EQ(comm, nullptr);
}

// Every enum spans every int, so a negative value is a value of the type the library rejects
// (reading it is defined behaviour in C++).
TEST(ExecApi, EnumsTakeEveryIntAndNegativeValuesAreRefused) {
  static_assert(std::is_signed_v<std::underlying_type_t<collplan_collective_t>>);
  static_assert(std::is_signed_v<std::underlying_type_t<collplan_dtype_t>>);
  static_assert(std::is_signed_v<std::underlying_type_t<collplan_op_t>>);
  static_assert(std::is_signed_v<std::underlying_type_t<collplan_status_t>>);
  collplan::World world = collplan::World::threads(1);
  world.runThreads([&](collplan::Comm &comm) {
    float x = 1, y = 0;
    collplan_call_t call{};
    call.collective = collplan_collective_t(-7);
    call.send = &x;
    call.recv = &y;
    call.send_bytes = call.recv_bytes = sizeof x;
    call.count = 1;
    EXPECT_TRUE(failsWith(collplan_call(comm.get(), &call), COLLPLAN_ERROR_INVALID_ARGUMENT,
                          "unknown collective -7"));
    call.collective = COLLPLAN_ALLREDUCE;
    call.dtype = collplan_dtype_t(-1);
    EXPECT_TRUE(failsWith(collplan_call(comm.get(), &call), COLLPLAN_ERROR_INVALID_ARGUMENT,
                          "unknown dtype -1"));
    call.dtype = COLLPLAN_F32;
    call.op = collplan_op_t(-2147483647 - 1);
    EXPECT_TRUE(failsWith(collplan_call(comm.get(), &call), COLLPLAN_ERROR_INVALID_ARGUMENT,
                          "unknown reduction op -2147483648"));
  });
  EXPECT_STREQ(collplan_error_string(collplan_status_t(-3)), "unknown collplan status");
  EXPECT_EQ(collplan_dtype_size(collplan_dtype_t(-3)), 0u);
}

/// Runs `body(rank, comm)` on a 2-rank cpu-threads world and returns each rank's status and
/// last-error message.
std::vector<std::pair<collplan_status_t, std::string>>
onTwoRanks(const std::function<collplan_status_t(int, collplan_comm_t)> &body) {
  setenv("COLLPLAN_TIMEOUT_S", "5", 1);
  collplan::World world = collplan::World::threads(2);
  std::vector<std::pair<collplan_status_t, std::string>> outcome(2);
  world.runThreads([&](collplan::Comm &comm) {
    const collplan_status_t status = body(comm.rank(), comm.get());
    outcome[size_t(comm.rank())] = {status, collplan_last_error()};
  });
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
  return outcome;
}

/// Whether some rank failed with INVALID_ARGUMENT and a message containing `part`.
::testing::AssertionResult someRankReports(
    const std::vector<std::pair<collplan_status_t, std::string>> &outcome, const std::string &part) {
  for (const auto &[status, message] : outcome)
    if (status == COLLPLAN_ERROR_INVALID_ARGUMENT && message.find(part) != std::string::npos)
      return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no rank reported \"" << part << "\": "
                                       << outcome[0].second << " | " << outcome[1].second;
}

TEST(ExecApi, MismatchedReductionOpsAreReported) {
  const auto outcome = onTwoRanks([](int rank, collplan_comm_t comm) {
    std::vector<float> a(16, 1.0f), b(16);
    return collplan_allreduce(comm, a.data(), b.data(), 16, COLLPLAN_F32,
                              rank == 0 ? COLLPLAN_SUM : COLLPLAN_MAX);
  });
  EXPECT_TRUE(someRankReports(outcome, "a message of another call: rank "));
  EXPECT_TRUE(someRankReports(outcome, "allreduce of f32 with op max, this rank allreduce of f32 "
                                       "with op sum") ||
              someRankReports(outcome, "allreduce of f32 with op sum, this rank allreduce of f32 "
                                       "with op max"));
}

// Rank 1 makes an extra call that moves nothing (count 0): without call numbers rank 0's first
// call would take rank 1's second call's data and report success.
TEST(ExecApi, ACallOnlySomeRanksMakeIsReported) {
  const auto outcome = onTwoRanks([](int rank, collplan_comm_t comm) {
    std::vector<float> a(16, 1.0f), b(16);
    if (rank == 1) {
      const collplan_status_t empty =
          collplan_allreduce(comm, a.data(), b.data(), 0, COLLPLAN_F32, COLLPLAN_SUM);
      if (empty != COLLPLAN_SUCCESS) return empty;
    }
    return collplan_allreduce(comm, a.data(), b.data(), 16, COLLPLAN_F32, COLLPLAN_SUM);
  });
  EXPECT_TRUE(someRankReports(outcome, "a rank skipped a call or made an extra one"));
}

// Each rank names itself the root: neither sends anything the other receives, so without the
// call board both would wait for the timeout.
TEST(ExecApi, MismatchedRootsAreReportedByEveryRank) {
  const auto outcome = onTwoRanks([](int rank, collplan_comm_t comm) {
    std::vector<float> a(16, float(rank)), b(16);
    return collplan_reduce(comm, a.data(), b.data(), 16, COLLPLAN_F32, COLLPLAN_SUM, rank);
  });
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(outcome[size_t(rank)].first, COLLPLAN_ERROR_INVALID_ARGUMENT) << rank;
    const int peer = 1 - rank;
    EXPECT_NE(outcome[size_t(rank)].second.find(
                  "are in call 1 with different arguments: rank " + std::to_string(peer) +
                  " called reduce of f32 with op sum with root " + std::to_string(peer) +
                  ", this rank reduce of f32 with op sum with root " + std::to_string(rank)),
              std::string::npos)
        << outcome[size_t(rank)].second;
  }
}

TEST(ExecApi, CppWrapperThrowsErrorWithStatus) {
  collplan::World world = collplan::World::threads(1);
  collplan::Comm comm = world.comm(0);
  try {
    comm.allreduce(static_cast<const float *>(nullptr), static_cast<float *>(nullptr), 3, COLLPLAN_SUM);
    FAIL() << "expected collplan::Error";
  } catch (const collplan::Error &e) {
    EXPECT_EQ(e.status(), COLLPLAN_ERROR_NULL_POINTER);
    EXPECT_NE(std::string(e.what()).find("send buffer is NULL"), std::string::npos);
  }
  float x[3] = {1, 2, 3}, y[3] = {};
  comm.allreduce(x, y, 3, COLLPLAN_SUM);
  EXPECT_EQ(y[2], 3.0f);
  EXPECT_EQ(comm.lastAlgorithm(), "recursive-doubling");  // the default rules below 32 KiB
}

}  // namespace
