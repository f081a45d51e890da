// The launch of the plan kernel, for the host code of the cuda backend (CudaTarget).
#pragma once

#include "runtime/backends/cuda/DeviceProgram.h"

#include <cuda_runtime_api.h>

namespace collplan::cuda {

/// Threads of each block: enough 16-byte loads in flight per block to stream an op's slice.
inline constexpr int kPlanKernelThreads = 512;

/// Enqueues the kernel with `blocks` blocks on `stream` (the current device's).
cudaError_t launchPlanKernel(const LaunchArgs &args, uint32_t blocks, cudaStream_t stream);
/// Blocks of the kernel one multiprocessor of the current device holds at once.
cudaError_t planKernelBlocksPerMultiprocessor(int *blocks);

}  // namespace collplan::cuda
