// cpu-shm single copy: the job-wide probe, in-place publishing, fetch, fallback and errors.
#include "ExecTestSupport.h"

#include "runtime/backends/cpu/CrossMemory.h"
#include "runtime/backends/cpu/ShmBackend.h"
#include "runtime/exec/RuntimeError.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace collplan;
using namespace collplan::test;

namespace {

/// Whether a child process may read this process's memory here (the condition the probe tests;
/// containers without CAP_SYS_PTRACE or with Yama ptrace_scope >= 1 refuse it).
bool crossMemoryWorksHere() {
  static const uint64_t word = 0x1234567890abcdefull;
  return runInProcesses(1, [&](int) {
           const pid_t parent = getppid();
           uint64_t read = 0;
           const int error = crossMemoryRead(parent, uint64_t(uintptr_t(&word)),
                                             reinterpret_cast<std::byte *>(&read), sizeof read);
           return error == 0 && read == word ? 0 : 1;
         }) == "";
}

/// Byte `i` of the value rank 0 publishes.
std::byte pattern(size_t i) { return std::byte((i * 131 + 7) & 0xff); }

void check(bool ok, const std::string &what) {
  if (!ok) throw std::runtime_error(what);
}

/// Waits (up to 30 s) until the next message of `c` arrived.
void waitArrived(Transport &t, Connection c) {
  const auto start = std::chrono::steady_clock::now();
  while (!t.arrived(c)) {
    check(std::chrono::steady_clock::now() - start < std::chrono::seconds(30), "no message came");
    std::this_thread::yield();
  }
}

TEST(ShmSingleCopy, LargeValuesArePublishedInPlaceAndFetchedByRange) {
  const bool expected = crossMemoryWorksHere();
  const std::string job = uniqueJob("sc-fetch");
  const size_t bytes = size_t(1) << 20;
  const std::string result = runInProcesses(2, [&](int rank) {
    setenv("COLLPLAN_TIMEOUT_S", "30", 1);
    unsetenv("COLLPLAN_SHM_SINGLE_COPY");
    unsetenv("COLLPLAN_SHM_SINGLE_COPY_MIN");
    ShmTransport t(job, rank, 2, defaultWaitPolicy());
    const Connection c = t.connect(1 - rank, 0, /*sending=*/rank == 0);
    check(t.peersCanRead(BufferKind::In), "single copy is on by default");
    t.beginCall(CallSignature{});
    check(t.singleCopyActive() == expected, "the probe disagrees with the parent's check");
    check(t.inPlaceMinBytes(nullptr, 0) == (expected ? size_t(16384) : SIZE_MAX),
          "in-place threshold");
    if (!expected) {
      t.endCall();
      return 0;
    }
    if (rank == 0) {
      std::vector<std::byte> value(bytes);  // private heap memory: not in any shared segment
      for (size_t i = 0; i < bytes; ++i) value[i] = pattern(i);
      t.post(c, value.data(), bytes);
      t.endCall();  // returns only after rank 1 released the message
      return 0;
    }
    waitArrived(t, c);
    check(t.acquire(c, bytes) == nullptr, "an in-place value must be fetched");
    std::vector<std::byte> piece(5000);
    t.fetch(c, 1000, piece.size(), piece.data());
    for (size_t i = 0; i < piece.size(); ++i)
      check(piece[i] == pattern(1000 + i), "fetched byte " + std::to_string(1000 + i));
    std::vector<std::byte> whole(bytes);
    t.fetch(c, 0, bytes, whole.data());
    for (size_t i = 0; i < bytes; ++i) check(whole[i] == pattern(i), "byte " + std::to_string(i));
    try {
      t.fetch(c, bytes - 10, 20, whole.data());
      check(false, "a fetch past the value's end must throw");
    } catch (const RuntimeError &e) {
      check(std::string(e.what()).find("of a 1048576-byte message") != std::string::npos, e.what());
    }
    t.release(c);
    t.endCall();
    return 0;
  });
  EXPECT_EQ(result, "");
}

TEST(ShmSingleCopy, DisabledJobsStageEveryValue) {
  // Values larger than a FIFO slot's payload are read where they lie: private memory cannot be
  // posted without single copy, staging can. A small value travels in its slot from anywhere.
  constexpr size_t kLarge = kSlotPayloadBytes + 1;
  const std::string job = uniqueJob("sc-off");
  const std::string result = runInProcesses(2, [&](int rank) {
    setenv("COLLPLAN_TIMEOUT_S", "30", 1);
    setenv("COLLPLAN_SHM_SINGLE_COPY", "0", 1);
    ShmTransport t(job, rank, 2, defaultWaitPolicy());
    const Connection c = t.connect(1 - rank, 0, /*sending=*/rank == 0);
    t.beginCall(CallSignature{});
    check(!t.singleCopyActive() && t.inPlaceMinBytes(nullptr, 0) == SIZE_MAX,
          "private memory is staged");
    if (rank == 0) {
      std::vector<std::byte> value(kLarge);
      try {
        t.post(c, value.data(), value.size());
        check(false, "publishing private memory without single copy must throw");
      } catch (const RuntimeError &e) {
        check(std::string(e.what()).find("outside its staging") != std::string::npos, e.what());
      }
      std::byte *staging = t.staging(kLarge);
      std::memset(staging, 7, kLarge);
      t.post(c, staging, kLarge);
      std::vector<std::byte> small(64, std::byte(9));
      t.post(c, small.data(), small.size());
    } else {
      waitArrived(t, c);
      const std::byte *data = t.acquire(c, kLarge);
      check(data != nullptr && data[kLarge - 1] == std::byte(7), "staged data is read in place");
      t.release(c);
      waitArrived(t, c);
      data = t.acquire(c, 64);
      check(data != nullptr && data[63] == std::byte(9), "a small private value travels in its slot");
      t.release(c);
    }
    t.endCall();
    return 0;
  });
  EXPECT_EQ(result, "");
}

TEST(ShmSingleCopy, AFetchFromAnExitedPeerIsAClearError) {
  if (!crossMemoryWorksHere()) GTEST_SKIP() << "cross-memory reads are not permitted here";
  const std::string job = uniqueJob("sc-gone");
  const std::string result = runInProcesses(2, [&](int rank) {
    setenv("COLLPLAN_TIMEOUT_S", "30", 1);
    unsetenv("COLLPLAN_SHM_SINGLE_COPY");
    setenv("COLLPLAN_SHM_SINGLE_COPY_MIN", "0", 1);
    ShmTransport t(job, rank, 2, defaultWaitPolicy());
    const Connection c = t.connect(1 - rank, 0, /*sending=*/rank == 0);
    t.beginCall(CallSignature{});
    std::vector<std::byte> value(4096);
    if (rank == 0) {
      t.post(c, value.data(), value.size());
      _exit(0);  // gone before the receiver copies the value out
    }
    waitArrived(t, c);
    check(t.acquire(c, value.size()) == nullptr, "in place");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    try {
      t.fetch(c, 0, value.size(), value.data());
    } catch (const RuntimeError &e) {
      const std::string what = e.what();
      check(e.code() == ErrorCode::System, "System error code");
      check(what.find("could not copy 4096 bytes from rank 0") != std::string::npos, what);
      check(what.find("process_vm_readv") != std::string::npos, what);
      return 0;
    }
    return 1;
  });
  EXPECT_EQ(result, "");
}

TEST(ShmSingleCopy, MalformedSettingsNameTheVariable) {
  const struct {
    const char *name, *value, *message;
  } cases[] = {
      {"COLLPLAN_SHM_SINGLE_COPY", "yes", "COLLPLAN_SHM_SINGLE_COPY must be 0 or 1, got \"yes\""},
      {"COLLPLAN_SHM_SINGLE_COPY", "2", "COLLPLAN_SHM_SINGLE_COPY must be 0 or 1, got \"2\""},
      {"COLLPLAN_SHM_SINGLE_COPY_MIN", "-5", "COLLPLAN_SHM_SINGLE_COPY_MIN must be a number of "
                                              "bytes (digits only), got \"-5\""},
      {"COLLPLAN_SHM_SINGLE_COPY_MIN", "16k", "got \"16k\""},
  };
  for (const auto &c : cases) {
    unsetenv("COLLPLAN_SHM_SINGLE_COPY");
    unsetenv("COLLPLAN_SHM_SINGLE_COPY_MIN");
    setenv(c.name, c.value, 1);
    try {
      World world = World::shm(uniqueJob("sc-env").c_str(), 1, 0);
      ADD_FAILURE() << c.name << "=" << c.value << " was accepted";
    } catch (const Error &e) {
      EXPECT_EQ(e.status(), COLLPLAN_ERROR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
  unsetenv("COLLPLAN_SHM_SINGLE_COPY");
  unsetenv("COLLPLAN_SHM_SINGLE_COPY_MIN");
}

}  // namespace

namespace {

TEST(ShmFifo, ASmallMessageDoesNotHoldItsSendersCall) {
  // A message that fits its FIFO slot is copied there when posted: the sender's call ends
  // without waiting for the receiver (here asleep past the sender's 1 s timeout), as an eager
  // MPI send does; a larger one would make endCall time out.
  const std::string job = uniqueJob("fifo-eager");
  const std::string result = runInProcesses(2, [&](int rank) {
    setenv("COLLPLAN_TIMEOUT_S", "1", 1);
    ShmTransport t(job, rank, 2, defaultWaitPolicy());
    const Connection c = t.connect(1 - rank, 0, /*sending=*/rank == 0);
    t.beginCall(CallSignature{});
    if (rank == 0) {
      std::vector<std::byte> value(kSlotPayloadBytes, std::byte(5));
      t.post(c, value.data(), value.size());
      value.assign(value.size(), std::byte(0));  // the caller's buffer is its own again
      t.endCall();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      waitArrived(t, c);
      const std::byte *data = t.acquire(c, kSlotPayloadBytes);
      check(data != nullptr && data[kSlotPayloadBytes - 1] == std::byte(5),
            "the message holds the value as posted");
      t.release(c);
      t.endCall();
    }
    return 0;
  });
  EXPECT_EQ(result, "");
}

}  // namespace
