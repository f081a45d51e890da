// A world of processes (CUDA IPC) emulated in one process: each rank's DeviceWorld on its own
// emulated device, arenas exchanged through the job's IpcBoard and mapped at other addresses, so
// FIFOs in the receiver's arena and offsets from the sender's staging are what carries the data.
#include "EmulatedJob.h"

#include "runtime/api/DeviceCalls.h"
#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/DefaultPlans.h"
#include "tuner/bench/CheckData.h"

#include <gtest/gtest.h>

#include <deque>
#include <thread>
#include <unistd.h>

using namespace collplan;
using namespace collplan::cuda;

namespace {

std::string jobName(const char *what) {
  return std::string("ipc-test-") + what + "-" + std::to_string(::getpid());
}

/// Runs `plan` once for `c` on every rank, each rank a DeviceWorld of its own in its own thread
/// (as processes would), and returns the wrong elements over ranks.
uint64_t runAsProcesses(const bench::BenchCase &c, const Plan &plan, size_t count,
                        const std::string &job, size_t stagingBytes = 1 << 20) {
  std::vector<uint64_t> wrong(size_t(c.ranks), 0);
  std::vector<std::string> errors(size_t(c.ranks));
  std::vector<std::thread> processes;
  for (int rank = 0; rank < c.ranks; ++rank)
    processes.emplace_back([&, rank] {
      try {
        test::HostTarget *target = nullptr;
        DeviceWorld world(c.ranks, rank, /*device=*/rank % 2, job,
                          [&](int) {
                            auto made = std::make_unique<test::HostTarget>(512, true);
                            target = made.get();
                            return made;
                          },
                          defaultWaitPolicy(), stagingBytes);
        EXPECT_EQ(world.mode(), DeviceMode::IpcProcesses);
        std::vector<char> in(bench::inputBytes(c, rank, count) + 8),
            out(bench::outputBytes(c, rank, count) + 8);
        bench::fillInput(c, rank, count, in.data());
        bench::poisonOutput(c, rank, count, out.data());
        CallBuffers call;
        call.in = in.data();
        call.out = out.data();
        call.inBytes = bench::inputBytes(c, rank, count);
        call.outBytes = bench::outputBytes(c, rank, count);
        call.count = count;
        call.dtype = c.dtype;
        call.op = c.op;
        for (int repeat = 0; repeat < 2; ++repeat) {  // counters carry over calls
          world.enqueueGroup(0, plan, {call}, nullptr);
          target->synchronize();
          world.checkFailure();
        }
        wrong[size_t(rank)] = bench::countWrong(c, rank, count, out.data());
      } catch (const std::exception &e) {
        errors[size_t(rank)] = e.what();
      }
    });
  for (std::thread &t : processes) t.join();
  for (int r = 0; r < c.ranks; ++r) EXPECT_EQ(errors[size_t(r)], "") << "rank " << r;
  uint64_t total = 0;
  for (uint64_t w : wrong) total += w;
  return total;
}

TEST(IpcWorld, EveryBuiltInPlanRunsWithMappedArenas) {
  std::deque<Plan> plans;
  int tried = 0;
  for (const BuiltInPlan &built : builtInPlans())
    for (CollectiveKind kind : built.kinds) {
      const bench::BenchCase c{kind, DType::BF16, ReduceOp::Sum, 1, 4};
      const Plan &plan = plans.emplace_back(built.make(kind, c.ranks, c.op, c.root, -1));
      ++tried;
      EXPECT_EQ(runAsProcesses(c, plan, 1029, jobName("all") + "-" + std::to_string(tried)), 0u)
          << std::string(built.name) << " " << toString(kind);
    }
  EXPECT_GT(tried, 8);
}

TEST(IpcWorld, RefusesAPlanThatStagesMoreThanTheArena) {
  const Plan plan = defaultPlan(CollectiveKind::AllReduce, 2, ReduceOp::Sum, 0);
  std::vector<std::string> errors(2);
  std::vector<std::thread> processes;
  const std::string job = jobName("small");
  for (int rank = 0; rank < 2; ++rank)
    processes.emplace_back([&, rank] {
      try {
        DeviceWorld world(2, rank, 0, job,
                          [](int) { return std::make_unique<test::HostTarget>(); },
                          defaultWaitPolicy(), /*stagingBytes=*/4096);
        std::vector<float> in(100000, 1.0f), out(100000);
        CallBuffers call;
        call.in = in.data();
        call.out = out.data();
        call.inBytes = in.size() * 4;
        call.outBytes = out.size() * 4;
        call.count = in.size();
        world.enqueueGroup(0, plan, {call}, nullptr);
      } catch (const std::exception &e) {
        errors[size_t(rank)] = e.what();
      }
    });
  for (std::thread &t : processes) t.join();
  for (const std::string &e : errors) {
    EXPECT_NE(e.find("bytes on rank"), std::string::npos) << "[" << e << "]";
    EXPECT_NE(e.find("its arena holds 4096 (COLLPLAN_CUDA_IPC_STAGING_BYTES)"), std::string::npos) << e;
  }
}

TEST(IpcWorld, ArenasOfDifferentSizesAreRefused) {
  const std::string job = jobName("sizes");
  std::vector<std::string> errors(2);
  std::vector<std::thread> processes;
  for (int rank = 0; rank < 2; ++rank)
    processes.emplace_back([&, rank] {
      try {
        DeviceWorld world(2, rank, 0, job, [](int) { return std::make_unique<test::HostTarget>(); },
                          defaultWaitPolicy(), rank == 0 ? 4096 : 8192);
      } catch (const RuntimeError &e) {
        errors[size_t(rank)] = e.what();
      }
    });
  for (std::thread &t : processes) t.join();
  EXPECT_NE(errors[0].find("every process must set COLLPLAN_CUDA_IPC_STAGING_BYTES alike"),
            std::string::npos) << errors[0];
}

}  // namespace
