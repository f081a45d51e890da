// DeviceCalls on emulated devices: the API's calls of one device's ranks wait for each other and
// launch together, from any order of ranks; mismatched or missing calls are refused by name.
#include "EmulatedJob.h"

#include "runtime/api/DeviceCalls.h"
#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/DefaultPlans.h"

#include <gtest/gtest.h>

using namespace collplan;
using namespace collplan::cuda;

namespace {

/// One allreduce of `count` f32 elements per rank, input rank + 1 everywhere.
struct AllReduceBuffers {
  AllReduceBuffers(test::EmulatedJob &job, size_t count) {
    for (int r = 0; r < job.ranks(); ++r) {
      auto *in = static_cast<float *>(job.allocate(r, count * 4));
      auto *out = static_cast<float *>(job.allocate(r, count * 4));
      for (size_t i = 0; i < count; ++i) in[i] = float(r + 1);
      CallBuffers call;
      call.in = in;
      call.out = out;
      call.inBytes = call.outBytes = count * 4;
      call.count = count;
      call.dtype = DType::F32;
      call.op = ReduceOp::Sum;
      calls.push_back(call);
    }
  }
  float out(int rank, size_t i) const { return static_cast<const float *>(calls[size_t(rank)].out)[i]; }
  std::vector<CallBuffers> calls;
};

std::string messageOf(const std::function<void()> &body) {
  try {
    body();
  } catch (const RuntimeError &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    return e.what();
  }
  return "no error";
}

TEST(DeviceCalls, RanksOfADeviceLaunchTogetherInAnyOrder) {
  test::EmulatedJob job({0, 0, 0, 0});
  const Plan plan = defaultPlan(CollectiveKind::AllReduce, 4, ReduceOp::Sum, 0);
  AllReduceBuffers buffers(job, 37);
  DeviceCalls calls(job);
  for (int rank : {2, 0, 3}) {
    calls.submit(rank, plan, buffers.calls[size_t(rank)], nullptr);
    EXPECT_EQ(job.launches(), std::vector<uint32_t>{0}) << "launched before rank 1's call";
  }
  EXPECT_THROW(calls.checkComplete(), RuntimeError);
  calls.submit(1, plan, buffers.calls[1], nullptr);
  job.synchronize();
  EXPECT_EQ(job.launches(), std::vector<uint32_t>{1});
  calls.checkComplete();
  for (int r = 0; r < 4; ++r) EXPECT_EQ(buffers.out(r, 36), 10.0f) << "rank " << r;
}

/// Each device launches once its own ranks have called; a device of one rank at once.
TEST(DeviceCalls, EachDeviceLaunchesWhenItsRanksHaveCalled) {
  test::EmulatedJob job({0, 1, 1});
  const Plan plan = defaultPlan(CollectiveKind::AllReduce, 3, ReduceOp::Sum, 0);
  AllReduceBuffers buffers(job, 1000);
  DeviceCalls calls(job);
  calls.submit(1, plan, buffers.calls[1], nullptr);
  calls.submit(0, plan, buffers.calls[0], nullptr);
  EXPECT_EQ(job.launches(), (std::vector<uint32_t>{1, 0}));
  calls.submit(2, plan, buffers.calls[2], nullptr);
  job.synchronize();
  EXPECT_EQ(job.launches(), (std::vector<uint32_t>{1, 1}));
  for (int r = 0; r < 3; ++r) EXPECT_EQ(buffers.out(r, 999), 6.0f) << "rank " << r;
}

TEST(DeviceCalls, RefusesCallsThatDoNotMatchTheirDevice) {
  test::EmulatedJob job({0, 0, 0});
  const Plan plan = defaultPlan(CollectiveKind::AllReduce, 3, ReduceOp::Sum, 0);
  const Plan other = defaultPlan(CollectiveKind::AllReduce, 3, ReduceOp::Max, 0);
  AllReduceBuffers buffers(job, 8);
  DeviceCalls calls(job);
  calls.submit(0, plan, buffers.calls[0], nullptr);
  EXPECT_EQ(messageOf([&] { calls.submit(0, plan, buffers.calls[0], nullptr); }),
            "rank 0's call comes before ranks 1, 2 of its device made theirs: the ranks of one "
            "device are launched together, one call each");
  CallBuffers shorter = buffers.calls[1];
  shorter.count = 7;
  EXPECT_EQ(messageOf([&] { calls.submit(1, plan, shorter, nullptr); }),
            "rank 1's call differs from the call its device's other ranks made (another "
            "collective, count, dtype or op): the ranks of one device are launched together, "
            "one call each");
  EXPECT_NE(messageOf([&] { calls.submit(1, other, buffers.calls[1], nullptr); }), "no error");
  int stream = 0;
  EXPECT_EQ(messageOf([&] { calls.submit(1, plan, buffers.calls[1], &stream); }),
            "rank 1's call is on another stream than its device's other ranks' calls: the ranks "
            "of one device are launched together, one call each");
  EXPECT_EQ(messageOf([&] { calls.checkComplete(); }),
            "the calls of ranks 0 wait for ranks 1, 2 of their device, which made none in the "
            "group: the ranks of one device are launched together, one call each");
  EXPECT_EQ(job.launches(), std::vector<uint32_t>{0});
}

}  // namespace
