// runPlanChecked: buffers laid out as the API lays them (in place at the canonical offset),
// filled on the host, copied in, one launch, read back and counted; runAsProcesses: the same
// with one DeviceWorld per rank, each in its own thread.
#include "LaunchCheck.h"

#include "HostTarget.h"

#include "runtime/backends/cuda/DeviceWorld.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

namespace collplan::cuda::test {

CheckBuffers::~CheckBuffers() {
  for (auto &[p, bytes] : ofRank_)
    if (p) target_.release(p);
}

char *CheckBuffers::forRank(size_t rank, size_t bytes) {
  if (ofRank_.size() <= rank) ofRank_.resize(rank + 1, {nullptr, 0});
  auto &[p, capacity] = ofRank_[rank];
  if (!p || capacity < bytes) {
    if (p) target_.release(p);
    p = nullptr;
    capacity = std::max(bytes, 2 * capacity);
    p = target_.allocate(capacity);
  }
  return static_cast<char *>(p);
}

uint64_t runPlanChecked(CheckBuffers &buffers, LaunchGroup &group, const Readback &readback,
                        const Plan &plan, const measure::BenchCase &c, size_t count,
                        Placement placement) {
  DeviceTarget &target = buffers.target();
  std::vector<CallBuffers> calls(static_cast<size_t>(c.ranks));
  for (int r = 0; r < c.ranks; ++r) {
    const size_t inBytes = measure::inputBytes(c, r, count), outBytes = measure::outputBytes(c, r, count);
    const int64_t shift = inPlaceBlockShift(c.kind, c.root, r) * int64_t(count * dtypeSize(c.dtype));
    const bool together = placement != Placement::OutOfPlace && inBytes && outBytes;
    const size_t outAt = together && shift < 0 ? size_t(-shift) : 0;
    const size_t bytes = outAt + outBytes + inBytes + size_t(std::abs(shift)) + 64;
    char *base = buffers.forRank(size_t(r), bytes);
    std::vector<char> image(bytes, 0);
    char *out = image.data() + outAt;
    char *in = !together                        ? out + outBytes + 16
               : placement == Placement::InPlace ? out + shift
                                                 : out;
    measure::poisonOutput(c, r, count, out);
    measure::fillInput(c, r, count, in);
    target.upload(base, image.data(), bytes);
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
  readback.synchronize();
  group.checkFailure();
  uint64_t wrong = 0;
  for (int r = 0; r < c.ranks; ++r) {
    std::vector<char> out(calls[size_t(r)].outBytes + 1);
    readback.copyOut(out.data(), calls[size_t(r)].out, calls[size_t(r)].outBytes);
    wrong += measure::countWrong(c, r, count, out.data());
  }
  return wrong;
}

uint64_t runAsProcesses(const measure::BenchCase &c, const Plan &plan, size_t count,
                        const std::string &job, size_t stagingBytes) {
  std::vector<uint64_t> wrong(size_t(c.ranks), 0);
  std::vector<std::string> errors(size_t(c.ranks));
  std::vector<std::thread> processes;
  for (int rank = 0; rank < c.ranks; ++rank)
    processes.emplace_back([&, rank] {
      try {
        HostTarget *target = nullptr;
        DeviceWorld world(c.ranks, rank, /*device=*/rank % 2, job,
                          [&](int) {
                            auto made = std::make_unique<HostTarget>(512, true);
                            target = made.get();
                            return made;
                          },
                          defaultWaitPolicy(), stagingBytes);
        EXPECT_EQ(world.mode(), DeviceMode::IpcProcesses);
        std::vector<char> in(measure::inputBytes(c, rank, count) + 8),
            out(measure::outputBytes(c, rank, count) + 8);
        measure::fillInput(c, rank, count, in.data());
        measure::poisonOutput(c, rank, count, out.data());
        CallBuffers call;
        call.in = in.data();
        call.out = out.data();
        call.inBytes = measure::inputBytes(c, rank, count);
        call.outBytes = measure::outputBytes(c, rank, count);
        call.count = count;
        call.dtype = c.dtype;
        call.op = c.op;
        for (int repeat = 0; repeat < 2; ++repeat) {  // counters carry over calls
          world.enqueueGroup(0, plan, {call}, nullptr);
          target->synchronize();
          world.checkFailure();
        }
        wrong[size_t(rank)] = measure::countWrong(c, rank, count, out.data());
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

}  // namespace collplan::cuda::test
