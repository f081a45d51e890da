// runPlanChecked: buffers laid out as the API lays them (in place at the canonical offset),
// filled on the host, copied in, one launch, read back and counted.
#include "LaunchCheck.h"

#include <cstdlib>
#include <vector>

namespace collplan::cuda::test {

uint64_t runPlanChecked(DeviceTarget &target, LaunchGroup &group, const Readback &readback,
                        const Plan &plan, const bench::BenchCase &c, size_t count, bool inPlace) {
  std::vector<CallBuffers> calls(static_cast<size_t>(c.ranks));
  std::vector<void *> memory;
  struct Release {
    DeviceTarget &target;
    std::vector<void *> &memory;
    ~Release() {
      for (void *p : memory) target.release(p);
    }
  } release{target, memory};
  for (int r = 0; r < c.ranks; ++r) {
    const size_t inBytes = bench::inputBytes(c, r, count), outBytes = bench::outputBytes(c, r, count);
    const int64_t shift = inPlaceBlockShift(c.kind, c.root, r) * int64_t(count * dtypeSize(c.dtype));
    const bool together = inPlace && inBytes && outBytes;
    const size_t outAt = together && shift < 0 ? size_t(-shift) : 0;
    const size_t bytes = outAt + outBytes + inBytes + size_t(std::abs(shift)) + 64;
    char *base = static_cast<char *>(target.allocate(bytes));
    memory.push_back(base);
    std::vector<char> image(bytes, 0);
    char *out = image.data() + outAt;
    char *in = together ? out + shift : out + outBytes + 16;
    bench::poisonOutput(c, r, count, out);
    bench::fillInput(c, r, count, in);
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
    wrong += bench::countWrong(c, r, count, out.data());
  }
  return wrong;
}

}  // namespace collplan::cuda::test
