// HostTarget: host memory for device memory, a thread per block, GCC atomics for the device's.
#include "HostTarget.h"

#include "runtime/backends/cuda/ChannelRunner.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

namespace collplan::cuda::test {
namespace {

/// One block of one thread: sync() has nothing to wait for.
class HostCtx {
public:
  uint32_t thread() const { return 0; }
  uint32_t threads() const { return 1; }
  void sync() {}
  BlockShared &shared() { return shared_; }
  uint64_t loadAcquire(const unsigned long long *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
  void storeRelease(unsigned long long *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
  uint64_t fetchAddAcqRel(unsigned long long *p, uint64_t v) {
    return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
  }
  uint32_t loadAcquire32(const unsigned int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
  void storeRelease32(unsigned int *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
  uint32_t fetchAddAcqRel32(unsigned int *p, uint32_t v) {
    return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
  }
  bool claimError(uint32_t *p, uint32_t v) {
    uint32_t expected = 0;
    return __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  }
  void publishError() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
  void fenceDevice() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
  uint64_t nowNs() {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
  }
  void pause() { std::this_thread::yield(); }

private:
  BlockShared shared_{};
};

}  // namespace

HostTarget::~HostTarget() {
  synchronize();
  for (void *p : live_) std::free(p);
}

void *HostTarget::allocate(size_t bytes) {
  void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  live_.insert(p);
  return p;
}

void HostTarget::release(void *p) {
  if (!live_.erase(p)) throw std::logic_error("HostTarget: release of memory it did not allocate");
  std::free(p);
}

void HostTarget::upload(void *dst, const void *src, size_t bytes) { std::memcpy(dst, src, bytes); }

void HostTarget::copyAsync(void *dst, const void *src, size_t bytes, StreamHandle) {
  synchronize();
  std::memmove(dst, src, bytes);
}

void HostTarget::launch(const LaunchArgs &args, uint32_t blocks, StreamHandle) {
  synchronize();
  ++launches_;
  running_ = args;
  for (uint32_t b = 0; b < blocks; ++b)
    blocks_.emplace_back([this, b, blocks] {
      HostCtx ctx;
      runChannelBlock(ctx, running_, b);
      finishBlock(ctx, running_, blocks);
    });
  if (!asynchronous_) synchronize();
}

void HostTarget::synchronize() {
  for (std::thread &t : blocks_) t.join();
  blocks_.clear();
}

}  // namespace collplan::cuda::test
