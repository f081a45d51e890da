// NCCL itself, for NcclCollectives: libnccl loaded at first use, its version and its calls.
// Built only where CMake found nccl.h (COLLPLAN_HAVE_NCCL).
#pragma once

#include "runtime/backends/Backend.h"

#include <memory>
#include <string>

namespace collplan::cuda {

/// "NCCL 2.28.9": the library loaded; "NCCL" when it cannot say.
std::string ncclLibraryVersion();

/// Throws std::invalid_argument when NCCL cannot run `kind` of `dtype`: libnccl cannot be loaded
/// (naming the files tried), or the NCCL this file was built against lacks it (bf16 before 2.10,
/// ncclSend/ncclRecv before 2.7).
void checkNcclCall(CollectiveKind kind, DType dtype);

/// One NCCL communicator per rank of `job` (ncclCommInitAll over the ranks' devices), which the
/// result enqueues on the job's streams, one group per call; destroyed with it (aborted when an
/// exception unwinds it), and the calling thread put back on its device. Throws
/// std::runtime_error naming the NCCL or CUDA call that failed.
std::unique_ptr<NativeDeviceCalls> openNcclCalls(DeviceJob &job);

}  // namespace collplan::cuda
