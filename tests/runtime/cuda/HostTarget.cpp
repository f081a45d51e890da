// HostTarget: host memory for device memory, a thread per block, GCC atomics for the device's.
#include "HostTarget.h"

#include "runtime/backends/cuda/ChannelRunner.h"
#include "runtime/exec/RuntimeError.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

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
  uint64_t loadRelaxed(const unsigned long long *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
  void storeRelaxed(unsigned long long *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
  void fenceAcqRel() { __atomic_thread_fence(__ATOMIC_ACQ_REL); }
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
  for (auto &[p, bytes] : opened_) ::munmap(p, bytes);
  for (auto &[p, bytes] : live_) ::munmap(p, bytes);
}

void *HostTarget::allocate(size_t bytes) {
  if (bytes > allocationLimit_)
    throw RuntimeError(ErrorCode::System, "host emulation: cudaMalloc of " + std::to_string(bytes) +
                                              " bytes: out of memory");
  const size_t mapped = std::max<size_t>((bytes + 4095) / 4096 * 4096, 4096);
  void *p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  live_[p] = mapped;  // zero-filled: fresh pages
  return p;
}

void HostTarget::release(void *p) noexcept {
  synchronize();  // as cudaFree waits for the device
  auto it = live_.find(p);
  if (it == live_.end()) {
    std::fprintf(stderr, "HostTarget: release of %p, which it did not allocate (a double free)\n", p);
    std::abort();
  }
  ::munmap(p, it->second);
  live_.erase(it);
}

IpcHandle HostTarget::exportMemory(void *p) {
  const Mapping m{p, live_.at(p)};
  IpcHandle handle;
  std::memcpy(handle.bytes, &m, sizeof m);
  return handle;
}

void *HostTarget::openMemory(const IpcHandle &handle) {
  Mapping m;
  std::memcpy(&m, handle.bytes, sizeof m);
  // old_size 0 on a shared mapping: a second mapping of the same pages, at another address.
  void *p = ::mremap(m.address, 0, m.bytes, MREMAP_MAYMOVE);
  if (p == MAP_FAILED) throw std::runtime_error("HostTarget: cannot map a peer's memory");
  opened_[p] = m.bytes;
  return p;
}

void HostTarget::closeMemory(void *mapped) {
  auto it = opened_.find(mapped);
  if (it == opened_.end()) throw std::logic_error("HostTarget: close of memory it did not open");
  ::munmap(mapped, it->second);
  opened_.erase(it);
}

void HostTarget::upload(void *dst, const void *src, size_t bytes) { std::memcpy(dst, src, bytes); }

void HostTarget::copyAsync(void *dst, const void *src, size_t bytes, StreamHandle) {
  synchronize();
  std::memmove(dst, src, bytes);
}

bool HostTarget::launch(const LaunchArgs &args, uint32_t blocks, StreamHandle) {
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
  return capturing_;
}

void HostTarget::synchronize() {
  for (std::thread &t : blocks_) t.join();
  blocks_.clear();
}

}  // namespace collplan::cuda::test
