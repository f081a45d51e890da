// The kernel that runs a launch's channels (ChannelRunner.h), one or more blocks per channel,
// with its atomics at device scope when every rank of the world is in the launch, and at system
// scope when peers may be other devices or processes.
#include "runtime/backends/cuda/PlanKernel.h"

#include "runtime/backends/cuda/ChannelRunner.h"

#include <algorithm>

namespace collplan::cuda {
namespace {

/// The PTX scope of a launch's atomics and fences.
enum class Scope { Device, System };


/// The PTX instruction `head` at the launch's scope S (".gpu" or ".sys") followed by `tail`, with
/// the asm operands that follow: both scopes are spelled in this one place.
#define COLLPLAN_PTX_AT_SCOPE(head, tail, ...)        \
  do {                                                \
    if constexpr (S == Scope::Device)                 \
      asm volatile(head ".gpu" tail __VA_ARGS__);     \
    else                                              \
      asm volatile(head ".sys" tail __VA_ARGS__);     \
  } while (0)

/// The runner's Ctx on the device: the block's threads, shared memory, PTX atomics at scope S.
template <Scope S>
class DeviceCtx {
public:
  __device__ explicit DeviceCtx(BlockShared &shared) : shared_(shared) {}
  __device__ uint32_t thread() const { return threadIdx.x; }
  __device__ uint32_t threads() const { return blockDim.x; }
  __device__ void sync() { __syncthreads(); }
  __device__ BlockShared &shared() { return shared_; }
  __device__ uint64_t loadAcquire(const unsigned long long *p) {
    unsigned long long v;
    COLLPLAN_PTX_AT_SCOPE("ld.acquire", ".global.u64 %0, [%1];", : "=l"(v) : "l"(p) : "memory");
    return v;
  }
  __device__ void storeRelease(unsigned long long *p, uint64_t v) {
    COLLPLAN_PTX_AT_SCOPE("st.release", ".global.u64 [%0], %1;",
                          ::"l"(p), "l"((unsigned long long)v) : "memory");
  }
  __device__ uint64_t loadRelaxed(const unsigned long long *p) {
    unsigned long long v;
    COLLPLAN_PTX_AT_SCOPE("ld.relaxed", ".global.u64 %0, [%1];", : "=l"(v) : "l"(p) : "memory");
    return v;
  }
  __device__ void storeRelaxed(unsigned long long *p, uint64_t v) {
    COLLPLAN_PTX_AT_SCOPE("st.relaxed", ".global.u64 [%0], %1;",
                          ::"l"(p), "l"((unsigned long long)v) : "memory");
  }
  __device__ void fenceAcqRel() { COLLPLAN_PTX_AT_SCOPE("fence.acq_rel", ";", ::: "memory"); }
  __device__ uint64_t fetchAddAcqRel(unsigned long long *p, uint64_t v) {
    unsigned long long old;
    COLLPLAN_PTX_AT_SCOPE("atom.acq_rel", ".global.add.u64 %0, [%1], %2;",
                          : "=l"(old) : "l"(p), "l"((unsigned long long)v) : "memory");
    return old;
  }
  __device__ uint32_t loadAcquire32(const unsigned int *p) {
    unsigned int v;
    COLLPLAN_PTX_AT_SCOPE("ld.acquire", ".global.u32 %0, [%1];", : "=r"(v) : "l"(p) : "memory");
    return v;
  }
  __device__ void storeRelease32(unsigned int *p, uint32_t v) {
    COLLPLAN_PTX_AT_SCOPE("st.release", ".global.u32 [%0], %1;", ::"l"(p), "r"(v) : "memory");
  }
  __device__ uint32_t fetchAddAcqRel32(unsigned int *p, uint32_t v) {
    unsigned int old;
    COLLPLAN_PTX_AT_SCOPE("atom.acq_rel", ".global.add.u32 %0, [%1], %2;",
                          : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
  }
  /// The error record is host-mapped memory: always system scope (once per failed launch).
  __device__ bool claimError(uint32_t *p, uint32_t v) {
    unsigned int old;
    asm volatile("atom.acq_rel.sys.global.cas.b32 %0, [%1], 0, %2;"
                 : "=r"(old)
                 : "l"(p), "r"(v)
                 : "memory");
    return old == 0;
  }
  __device__ void publishError() { __threadfence_system(); }
  __device__ void fenceDevice() {
    if constexpr (S == Scope::Device)
      __threadfence();
    else
      __threadfence_system();
  }
  __device__ uint64_t nowNs() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
  }
  __device__ void pause() { __nanosleep(32); }

private:
  BlockShared &shared_;
};
#undef COLLPLAN_PTX_AT_SCOPE

template <Scope S>
__global__ void __launch_bounds__(kPlanKernelThreads) planKernel(const LaunchArgs args) {
  __shared__ BlockShared shared;
  DeviceCtx<S> ctx(shared);
  runChannelBlock(ctx, args, blockIdx.x);
  finishBlock(ctx, args, gridDim.x);
}

}  // namespace

cudaError_t launchPlanKernel(const LaunchArgs &args, uint32_t blocks, cudaStream_t stream) {
  if (args.systemScope)
    planKernel<Scope::System><<<blocks, kPlanKernelThreads, 0, stream>>>(args);
  else
    planKernel<Scope::Device><<<blocks, kPlanKernelThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t planKernelBlocksPerMultiprocessor(int *blocks) {
  // The fewer of the two, so a launch refused for one scope is refused for both.
  int device = 0, system = 0;
  cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &device, planKernel<Scope::Device>, kPlanKernelThreads, 0);
  if (status == cudaSuccess)
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&system, planKernel<Scope::System>,
                                                           kPlanKernelThreads, 0);
  *blocks = std::min(device, system);
  return status;
}

}  // namespace collplan::cuda
