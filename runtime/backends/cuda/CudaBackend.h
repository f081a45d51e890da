// The cuda backend's entry points besides the registry: opening the devices of a world.
#pragma once

#include "runtime/backends/cuda/DeviceWorld.h"

#include <memory>

namespace collplan::cuda {

/// The world of `ranks` ranks, all in this process, on the devices COLLPLAN_CUDA_DEVICES assigns
/// (unset: every rank on device 0), with peer access enabled between them and the kernels' timeout
/// from `policy`. Throws RuntimeError: Unsupported when no device is usable (saying why), and
/// InvalidArgument for a bad COLLPLAN_CUDA_DEVICES or devices without peer access.
std::unique_ptr<DeviceWorld> openCudaWorld(int ranks, const WaitPolicy &policy);

/// Rank `rank` of a world of `ranks` processes named `job` (CUDA IPC): on the device
/// COLLPLAN_CUDA_DEVICES assigns it (unset: rank % devices), with COLLPLAN_CUDA_IPC_STAGING_BYTES
/// of staging. Throws RuntimeError as openCudaWorld, and Timeout naming the processes that did
/// not come.
std::unique_ptr<DeviceWorld> openCudaRank(int ranks, int rank, const std::string &job,
                                          const WaitPolicy &policy);

}  // namespace collplan::cuda
