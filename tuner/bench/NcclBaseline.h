// The NCCL baseline: NCCL's own collective timed on the devices of a backend that runs on them.
#pragma once

#include "runtime/backends/Backend.h"
#include "tuner/bench/RankLoop.h"

#include <string>
#include <vector>

namespace collplan::bench {

/// Whether this build calls NCCL (CMake found nccl.h and libnccl); without it every check below
/// throws, saying so.
bool ncclBuiltIn();

/// "NCCL 2.28.9": the version of the library this process loaded; "" in a build without NCCL.
std::string ncclVersion();

/// What NCCL runs for `kind`, for headers: "ncclAllReduce", "ncclSend/ncclRecv (all-to-all)",
/// "ncclAllReduce (1 element, barrier)".
std::string ncclFunctionName(CollectiveKind kind);

/// Throws std::invalid_argument, its message starting with "--baseline nccl", when NCCL cannot
/// time the job's collectives: a backend whose ranks do not run on devices (any non-device
/// backend, sim included), or a build without NCCL. Needs no device.
void checkNcclBackend(const Backend &backend);

/// Throws std::invalid_argument when two ranks of `job` share a device: NCCL allows one rank per
/// GPU, so the message asks for COLLPLAN_CUDA_DEVICES with one device per rank.
void checkNcclDevices(const DeviceJob &job);

/// Everything checkNcclBackend checks, then what NCCL lacks of `c` (none of collplan's dtypes
/// and ops with NCCL 2.10 or later), then the devices of a job of `c.ranks` ranks that the
/// backend opens for the purpose (checkNcclDevices). Call it before measuring, so a bad request
/// fails at once. Throws std::invalid_argument, and RuntimeError where the backend cannot open
/// its devices at all (no GPU).
void checkNcclBaseline(const BenchCase &c, const Backend &backend);

/// Per size, the median over repetitions of NCCL's collective on every rank, in µs, timed as
/// the plans are on a DeviceJob of `backend`: `settings.warmup` untimed calls, then `reps`
/// times {DeviceJob::startTimer; ncclGroupStart, the call of every rank on its communicator and
/// stream, ncclGroupEnd; DeviceJob::stopTimer}. Opens its own job and one communicator per rank
/// (ncclCommInitAll over the ranks' devices), destroyed on every path. With `settings.check`,
/// each size's first call is compared with the host reference (CheckData.h), and a difference
/// throws std::runtime_error: it means this file passes NCCL the wrong buffers. Throws as
/// checkNcclBaseline, and std::runtime_error naming the NCCL or CUDA call that failed.
std::vector<double> runNcclBaseline(const Backend &backend, const BenchCase &c,
                                    const std::vector<SizePoint> &sizes,
                                    const LoopSettings &settings);

}  // namespace collplan::bench
