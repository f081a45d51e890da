// The plan kernel on a real GPU: every built-in plan on N = 2..8 virtual ranks of device 0, every
// dtype, odd counts, in place, checked against the host reference. Skipped without a GPU.
#include "runtime/backends/cuda/CudaTarget.h"
#include "runtime/backends/cuda/LaunchGroup.h"
#include "runtime/plan/DefaultPlans.h"
#include "tuner/bench/CheckData.h"

#include <gtest/gtest.h>

#include <deque>
#include <numeric>

using namespace collplan;
using namespace collplan::cuda;

namespace {

class CudaDevice : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (visibleDevices(&why) == 0) GTEST_SKIP() << "no CUDA device here (" << why << ")";
  }
};

/// Runs `plan` once on every rank (device buffers; in place when asked) and returns the wrong
/// elements over ranks.
uint64_t runOnDevice(CudaTarget &target, LaunchGroup &group, const Plan &plan,
                     const bench::BenchCase &c, size_t count, bool inPlace) {
  std::vector<CallBuffers> calls(static_cast<size_t>(c.ranks));
  std::vector<void *> memory;
  std::vector<std::vector<char>> host(static_cast<size_t>(c.ranks));
  for (int r = 0; r < c.ranks; ++r) {
    const size_t inBytes = bench::inputBytes(c, r, count), outBytes = bench::outputBytes(c, r, count);
    const int64_t shift = inPlaceBlockShift(c.kind, c.root, r) * int64_t(count * dtypeSize(c.dtype));
    const bool together = inPlace && inBytes && outBytes;
    const size_t outAt = together && shift < 0 ? size_t(-shift) : 0;
    const size_t bytes = outAt + outBytes + inBytes + size_t(std::abs(shift)) + 64;
    char *base = static_cast<char *>(target.allocate(bytes));
    memory.push_back(base);
    std::vector<char> &image = host[size_t(r)];
    image.assign(bytes, 0);
    char *out = image.data() + outAt;
    char *in = together ? out + shift : out + outBytes + 16;
    bench::poisonOutput(c, r, count, out);
    bench::fillInput(c, r, count, in);
    target.copyIn(base, image.data(), bytes);
    CallBuffers &call = calls[size_t(r)];
    call.in = base + (in - image.data());
    call.out = base + outAt;
    call.inBytes = inBytes;
    call.outBytes = outBytes;
    call.count = count;
    call.dtype = c.dtype;
    call.op = c.op;
  }
  group.enqueue(plan, calls, nullptr);
  target.synchronize(nullptr);
  group.checkFailure();
  uint64_t wrong = 0;
  for (int r = 0; r < c.ranks; ++r) {
    std::vector<char> out(calls[size_t(r)].outBytes + 1);
    target.copyOut(out.data(), calls[size_t(r)].out, calls[size_t(r)].outBytes);
    wrong += bench::countWrong(c, r, count, out.data());
    target.release(memory[size_t(r)]);
  }
  return wrong;
}

TEST_F(CudaDevice, EveryBuiltInPlanEveryDtypeOddCountsInPlace) {
  CudaTarget target(0);
  for (int n = 2; n <= 8; ++n) {
    FifoStore fifos(target);
    ConnectionTable table;
    std::vector<int> ranks(static_cast<size_t>(n));
    std::iota(ranks.begin(), ranks.end(), 0);
    LaunchGroup group(target, fifos, table, ranks, n, 10'000'000'000ull);
    std::deque<Plan> plans;  // prepared by address: they outlive the group's use
    for (const BuiltInPlan &built : builtInPlans())
      for (CollectiveKind kind : built.kinds)
        for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I32,
                            DType::I64, DType::U8}) {
          bench::BenchCase c{kind, dtype, dtype == DType::I32 ? ReduceOp::Max : ReduceOp::Sum,
                             n - 1, n};
          const Plan &plan = plans.emplace_back(built.make(kind, n, c.op, c.root, -1));
          for (size_t count : {size_t(1), size_t(7), size_t(1029), size_t(1) << 20})
            for (bool inPlace : {false, true})
              EXPECT_EQ(runOnDevice(target, group, plan, c, count, inPlace), 0u)
                  << plan.algorithm << " " << toString(kind) << " N=" << n << " "
                  << toString(dtype) << " count=" << count << " in place=" << inPlace;
        }
  }
}

}  // namespace
