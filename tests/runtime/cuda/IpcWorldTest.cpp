// A world of processes (CUDA IPC) emulated in one process: each rank's DeviceWorld on its own
// emulated device, arenas exchanged through the job's IpcBoard and mapped at other addresses, so
// FIFOs in the receiver's arena and offsets from the sender's staging are what carries the data.
#include "EmulatedJob.h"
#include "LaunchCheck.h"

#include "runtime/api/DeviceCalls.h"
#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/DefaultPlans.h"
#include "tuner/measure/CheckData.h"

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

TEST(IpcWorld, EveryBuiltInPlanRunsWithMappedArenas) {
  std::deque<Plan> plans;
  int tried = 0;
  for (const BuiltInPlan &built : builtInPlans())
    for (CollectiveKind kind : built.kinds) {
      const measure::BenchCase c{kind, DType::BF16, ReduceOp::Sum, 1, 4};
      const Plan &plan = plans.emplace_back(built.make(kind, c.ranks, c.op, c.root, -1));
      ++tried;
      EXPECT_EQ(test::runAsProcesses(c, plan, 1029, jobName("all") + "-" + std::to_string(tried)), 0u)
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
