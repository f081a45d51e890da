// The kernel that runs a launch's channels (ChannelRunner.h), one or more blocks per channel,
// with the device's atomics at system scope (peers may be other devices or processes).
#include "runtime/backends/cuda/PlanKernel.h"

#include "runtime/backends/cuda/ChannelRunner.h"

namespace collplan::cuda {
namespace {

__device__ inline unsigned long long loadAcquireSys(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ inline unsigned int loadAcquireSys32(const unsigned int *p) {
  unsigned int v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/// The runner's Ctx on the device: the block's threads, shared memory, PTX atomics.
class DeviceCtx {
public:
  __device__ explicit DeviceCtx(BlockShared &shared) : shared_(shared) {}
  __device__ uint32_t thread() const { return threadIdx.x; }
  __device__ uint32_t threads() const { return blockDim.x; }
  __device__ void sync() { __syncthreads(); }
  __device__ BlockShared &shared() { return shared_; }
  __device__ uint64_t loadAcquire(const unsigned long long *p) { return loadAcquireSys(p); }
  __device__ void storeRelease(unsigned long long *p, uint64_t v) {
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"((unsigned long long)v)
                 : "memory");
  }
  __device__ uint64_t fetchAddAcqRel(unsigned long long *p, uint64_t v) {
    unsigned long long old;
    asm volatile("atom.acq_rel.sys.global.add.u64 %0, [%1], %2;"
                 : "=l"(old)
                 : "l"(p), "l"((unsigned long long)v)
                 : "memory");
    return old;
  }
  __device__ uint32_t loadAcquire32(const unsigned int *p) { return loadAcquireSys32(p); }
  __device__ void storeRelease32(unsigned int *p, uint32_t v) {
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  }
  __device__ uint32_t fetchAddAcqRel32(unsigned int *p, uint32_t v) {
    unsigned int old;
    asm volatile("atom.acq_rel.sys.global.add.u32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(p), "r"(v)
                 : "memory");
    return old;
  }
  __device__ bool claimError(uint32_t *p, uint32_t v) {
    unsigned int old;
    asm volatile("atom.acq_rel.sys.global.cas.b32 %0, [%1], 0, %2;"
                 : "=r"(old)
                 : "l"(p), "r"(v)
                 : "memory");
    return old == 0;
  }
  __device__ void publishError() { __threadfence_system(); }
  __device__ void fenceDevice() { __threadfence_system(); }
  __device__ uint64_t nowNs() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
  }
  __device__ void pause() { __nanosleep(32); }

private:
  BlockShared &shared_;
};

__global__ void __launch_bounds__(kPlanKernelThreads) planKernel(const LaunchArgs args) {
  __shared__ BlockShared shared;
  DeviceCtx ctx(shared);
  runChannelBlock(ctx, args, blockIdx.x);
  finishBlock(ctx, args, gridDim.x);
}

}  // namespace

cudaError_t launchPlanKernel(const LaunchArgs &args, uint32_t blocks, cudaStream_t stream) {
  planKernel<<<blocks, kPlanKernelThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t planKernelBlocksPerMultiprocessor(int *blocks) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, planKernel, kPlanKernelThreads, 0);
}

}  // namespace collplan::cuda
