// The cuda backend's own collectives: NCCL's, on the ranks of a DeviceJob, one GPU each.
#pragma once

#include "runtime/backends/Backend.h"

namespace collplan::cuda {

/// NCCL's collectives (cudaBackend().nativeCollectives()): allreduce, allgather, reduce_scatter,
/// broadcast and reduce as NCCL's calls of those names; alltoall, gather and scatter as
/// ncclSend / ncclRecv pairs in one group (as nccl-tests does); barrier as a 1-element f32
/// allreduce; every collplan dtype and op. NCCL is loaded from libnccl at first use, so the
/// runtime does not link it and a job that never asks for it never loads it. In a build without
/// nccl.h (or where libnccl cannot be loaded) `check` says so and `open` throws.
const NativeCollectives &ncclCollectives();

/// Whether this build can call NCCL (CMake found nccl.h).
bool ncclBuiltIn();

}  // namespace collplan::cuda
