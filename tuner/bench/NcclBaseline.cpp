// checkNcclBaseline and runNcclBaseline: NCCL's collectives on a DeviceJob's ranks, one GPU each.
#include "tuner/bench/NcclBaseline.h"

#include "runtime/backends/cuda/DeviceSetup.h"
#include "tuner/bench/DeviceLoop.h"

#include <algorithm>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>

#ifdef COLLPLAN_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0) && defined(__CUDA_BF16_TYPES_EXIST__)
#define COLLPLAN_NCCL_HAS_BF16 1
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 7, 0)
#define COLLPLAN_NCCL_HAS_SEND_RECV 1
#endif
#endif

namespace collplan::bench {
namespace {

/// The registry's backends whose ranks run on devices, for messages: "--backend cuda".
std::string deviceBackendOptions() {
  std::string names;
  for (const Backend *b : backends())
    if (b->runsOnDevices())
      names += (names.empty() ? "--backend " : " or --backend ") + std::string(b->name());
  return names.empty() ? "none in this build: the cuda backend is built when CMake finds nvcc"
                       : names;
}

/// "0,1,2,3": one device per rank, for the message that asks for it.
std::string oneDevicePerRank(int ranks) {
  if (ranks > 8) return "0,1,...," + std::to_string(ranks - 1);
  std::string list;
  for (int r = 0; r < ranks; ++r) list += (r ? "," : "") + std::to_string(r);
  return list;
}

}  // namespace

std::string ncclFunctionName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce: return "ncclAllReduce";
  case CollectiveKind::AllGather: return "ncclAllGather";
  case CollectiveKind::ReduceScatter: return "ncclReduceScatter";
  case CollectiveKind::Broadcast: return "ncclBroadcast";
  case CollectiveKind::Reduce: return "ncclReduce";
  case CollectiveKind::AllToAll: return "ncclSend/ncclRecv (all-to-all)";
  case CollectiveKind::Gather: return "ncclSend/ncclRecv (gather)";
  case CollectiveKind::Scatter: return "ncclSend/ncclRecv (scatter)";
  case CollectiveKind::Barrier: return "ncclAllReduce (1 element, barrier)";
  }
  return "nccl";
}

void checkNcclBackend(const Backend &backend) {
  if (!backend.runsOnDevices())
    throw std::invalid_argument("--baseline nccl times NCCL on the GPUs of the job, so it needs a "
                                "backend whose ranks run on devices (" + deviceBackendOptions() +
                                "), not --backend " + std::string(backend.name()));
  if (!ncclBuiltIn())
    throw std::invalid_argument("--baseline nccl: this build has no NCCL (nccl.h and libnccl were "
                                "not found when CMake ran); install NCCL next to the CUDA toolkit "
                                "and reconfigure");
}

void checkNcclDevices(const DeviceJob &job) {
  std::map<int, int> rankOnDevice;
  for (int r = 0; r < job.ranks(); ++r) {
    const auto [it, fresh] = rankOnDevice.emplace(job.deviceOf(r), r);
    if (!fresh)
      throw std::invalid_argument(
          "--baseline nccl: NCCL allows one rank per GPU, but ranks " + std::to_string(it->second) +
          " and " + std::to_string(r) + " are both on device " + std::to_string(it->first) + " (" +
          job.describe() + "): set " + cuda::kDevicesVariable + " to one device per rank (e.g. " +
          cuda::kDevicesVariable + "=" + oneDevicePerRank(job.ranks()) + ") on a machine with " +
          std::to_string(job.ranks()) + " GPUs or more");
  }
}

#ifndef COLLPLAN_HAVE_NCCL

bool ncclBuiltIn() { return false; }
std::string ncclVersion() { return ""; }

void checkNcclBaseline(const BenchCase &, const Backend &backend) {
  checkNcclBackend(backend);  // throws: no NCCL
}

std::vector<double> runNcclBaseline(const Backend &backend, const BenchCase &c,
                                    const std::vector<SizePoint> &, const LoopSettings &) {
  checkNcclBaseline(c, backend);
  return {};
}

#else  // COLLPLAN_HAVE_NCCL

namespace {

/// Throws std::runtime_error naming the NCCL call, NCCL's reason and its last error message.
void checkNccl(ncclResult_t result, const char *call) {
  if (result == ncclSuccess) return;
  std::string message = std::string("--baseline nccl: ") + call + " failed: " +
                        ncclGetErrorString(result);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 13, 0)
  const char *last = ncclGetLastError(nullptr);
  if (last && *last) message += std::string(" (") + last + ")";
#endif
  throw std::runtime_error(message);
}

void checkCuda(cudaError_t result, const char *call) {
  if (result != cudaSuccess)
    throw std::runtime_error(std::string("--baseline nccl: ") + call + " failed: " +
                             cudaGetErrorString(result));
}

ncclDataType_t ncclType(DType dtype) {
  switch (dtype) {
  case DType::F32: return ncclFloat32;
  case DType::F64: return ncclFloat64;
  case DType::F16: return ncclFloat16;
#ifdef COLLPLAN_NCCL_HAS_BF16
  case DType::BF16: return ncclBfloat16;
#else
  case DType::BF16: break;  // refused by checkNcclCase
#endif
  case DType::I32: return ncclInt32;
  case DType::I64: return ncclInt64;
  case DType::U8: return ncclUint8;
  }
  throw std::logic_error("--baseline nccl: no NCCL type for " + std::string(toString(dtype)));
}

ncclRedOp_t ncclOp(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum: return ncclSum;
  case ReduceOp::Prod: return ncclProd;
  case ReduceOp::Min: return ncclMin;
  case ReduceOp::Max: return ncclMax;
  }
  return ncclSum;
}

/// What the NCCL this file was compiled with lacks of `c`.
void checkNcclCase(const BenchCase &c) {
#ifndef COLLPLAN_NCCL_HAS_BF16
  if (c.dtype == DType::BF16)
    throw std::invalid_argument("--baseline nccl: this build's NCCL has no bf16 type (NCCL 2.10 "
                                "with CUDA 11 or later has it)");
#endif
#ifndef COLLPLAN_NCCL_HAS_SEND_RECV
  if (c.kind == CollectiveKind::AllToAll || c.kind == CollectiveKind::Gather ||
      c.kind == CollectiveKind::Scatter)
    throw std::invalid_argument("--baseline nccl: " + std::string(toString(c.kind)) +
                                " needs ncclSend/ncclRecv, which NCCL has from 2.7");
#endif
}

/// Puts the calling thread back on the device it was on (NCCL's set-up moves it).
class CurrentDeviceGuard {
public:
  CurrentDeviceGuard() { checkCuda(cudaGetDevice(&device_), "cudaGetDevice"); }
  ~CurrentDeviceGuard() { cudaSetDevice(device_); }
  CurrentDeviceGuard(const CurrentDeviceGuard &) = delete;
  CurrentDeviceGuard &operator=(const CurrentDeviceGuard &) = delete;

private:
  int device_ = 0;
};

/// One communicator per rank of the job (ncclCommInitAll over the ranks' devices), destroyed with
/// this object; aborted instead when an exception unwinds it, so a communicator left with work in
/// flight by a failed call cannot hang the tool.
class NcclComms {
public:
  explicit NcclComms(const std::vector<int> &devices)
      : comms_(devices.size(), nullptr), exceptions_(std::uncaught_exceptions()) {
    checkNccl(ncclCommInitAll(comms_.data(), int(devices.size()), devices.data()),
              "ncclCommInitAll");
  }
  ~NcclComms() {
    const bool unwinding = std::uncaught_exceptions() > exceptions_;
    for (ncclComm_t comm : comms_)
      if (comm) unwinding ? ncclCommAbort(comm) : ncclCommDestroy(comm);
  }
  NcclComms(const NcclComms &) = delete;
  NcclComms &operator=(const NcclComms &) = delete;
  ncclComm_t of(int rank) const { return comms_[size_t(rank)]; }

private:
  std::vector<ncclComm_t> comms_;
  int exceptions_;
};

/// What one rank passes to NCCL for one call.
struct RankCall {
  int rank = 0;
  const void *in = nullptr;
  void *out = nullptr;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

/// Enqueues rank `call.rank`'s part of one call of `c` with `count` elements per block (inside
/// the caller's group); `*name` is set to the NCCL function called, for the error message.
ncclResult_t enqueueRank(const BenchCase &c, const RankCall &call, size_t count,
                         const char **name) {
  const size_t block = count * dtypeSize(c.dtype);
  const auto in = [&](int b) { return static_cast<const char *>(call.in) + size_t(b) * block; };
  const auto out = [&](int b) { return static_cast<char *>(call.out) + size_t(b) * block; };
  const ncclComm_t comm = call.comm;
  const cudaStream_t stream = call.stream;
  switch (c.kind) {
  case CollectiveKind::AllReduce:
    *name = "ncclAllReduce";
    return ncclAllReduce(call.in, call.out, count, ncclType(c.dtype), ncclOp(c.op), comm, stream);
  case CollectiveKind::AllGather:
    *name = "ncclAllGather";
    return ncclAllGather(call.in, call.out, count, ncclType(c.dtype), comm, stream);
  case CollectiveKind::ReduceScatter:
    *name = "ncclReduceScatter";
    return ncclReduceScatter(call.in, call.out, count, ncclType(c.dtype), ncclOp(c.op), comm,
                             stream);
  case CollectiveKind::Broadcast:
    *name = "ncclBroadcast";
    return ncclBroadcast(call.in, call.out, count, ncclType(c.dtype), c.root, comm, stream);
  case CollectiveKind::Reduce:
    *name = "ncclReduce";
    return ncclReduce(call.in, call.out, count, ncclType(c.dtype), ncclOp(c.op), c.root, comm,
                      stream);
  case CollectiveKind::Barrier:
    *name = "ncclAllReduce";
    return ncclAllReduce(call.in, call.out, 1, ncclFloat32, ncclSum, comm, stream);
#ifdef COLLPLAN_NCCL_HAS_SEND_RECV
  case CollectiveKind::AllToAll:
  case CollectiveKind::Gather:
  case CollectiveKind::Scatter: {
    // Which blocks go where: every (peer, block) pair this rank sends or receives.
    const bool all = c.kind == CollectiveKind::AllToAll, isRoot = call.rank == c.root;
    const bool sendsAll = all || (c.kind == CollectiveKind::Scatter && isRoot);
    const bool receivesAll = all || (c.kind == CollectiveKind::Gather && isRoot);
    for (int p = 0; p < c.ranks; ++p) {
      ncclResult_t result = ncclSuccess;
      if (sendsAll || (p == c.root && c.kind == CollectiveKind::Gather)) {
        *name = "ncclSend";
        result = ncclSend(in(sendsAll ? p : 0), count, ncclType(c.dtype), p, comm, stream);
        if (result != ncclSuccess) return result;
      }
      if (receivesAll || (p == c.root && c.kind == CollectiveKind::Scatter)) {
        *name = "ncclRecv";
        result = ncclRecv(out(receivesAll ? p : 0), count, ncclType(c.dtype), p, comm, stream);
        if (result != ncclSuccess) return result;
      }
    }
    return ncclSuccess;
  }
#else
  case CollectiveKind::AllToAll:
  case CollectiveKind::Gather:
  case CollectiveKind::Scatter: break;  // refused by checkNcclCase
#endif
  }
  *name = "an NCCL call";  // unreachable: every kind is handled above
  return ncclInvalidUsage;
}

/// One call of the collective on every rank, in one group (one thread drives every device).
void enqueueCall(const BenchCase &c, const std::vector<RankCall> &calls, size_t count) {
  checkNccl(ncclGroupStart(), "ncclGroupStart");
  const char *failedCall = "";
  ncclResult_t result = ncclSuccess;
  for (const RankCall &call : calls) {
    result = enqueueRank(c, call, count, &failedCall);
    if (result != ncclSuccess) break;
  }
  const ncclResult_t ended = ncclGroupEnd();  // closes the group on every path
  checkNccl(result, failedCall);
  checkNccl(ended, "ncclGroupEnd");
}

}  // namespace

bool ncclBuiltIn() { return true; }

std::string ncclVersion() {
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess) return "NCCL";
  const bool wide = code >= 10000;  // NCCL_VERSION's encoding from 2.9 on
  const int major = wide ? code / 10000 : code / 1000;
  const int minor = wide ? code / 100 % 100 : code / 100 % 10;
  return "NCCL " + std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(code % 100);
}

void checkNcclBaseline(const BenchCase &c, const Backend &backend) {
  checkNcclBackend(backend);
  checkNcclCase(c);
  const std::unique_ptr<DeviceJob> job = backend.openDeviceJob(c.ranks);
  checkNcclDevices(*job);
}

std::vector<double> runNcclBaseline(const Backend &backend, const BenchCase &c,
                                    const std::vector<SizePoint> &sizes,
                                    const LoopSettings &settings) {
  checkNcclBackend(backend);
  checkNcclCase(c);
  const std::unique_ptr<DeviceJob> job = backend.openDeviceJob(c.ranks);
  checkNcclDevices(*job);
  const CurrentDeviceGuard currentDevice;
  const DeviceSweepBuffers buffers(*job, c, sizes);
  // After the buffers, so the communicators go first: aborted on an error, they stop the kernels
  // that could still use the buffers.
  std::vector<int> devices;
  for (int r = 0; r < c.ranks; ++r) devices.push_back(job->deviceOf(r));
  const NcclComms comms(devices);
  std::vector<RankCall> ncclCalls(size_t(c.ranks));
  const RankTimes times = runDeviceSweep(
      *job, buffers, c, sizes, settings, {},
      [&](const SizePoint &size, const std::vector<CallBuffers> &calls) {
        for (int r = 0; r < c.ranks; ++r)
          ncclCalls[size_t(r)] = {r, calls[size_t(r)].in, calls[size_t(r)].out, comms.of(r),
                                  static_cast<cudaStream_t>(job->streamOf(r))};
        enqueueCall(c, ncclCalls, size.count);
      });
  std::vector<double> medians;
  const std::vector<SizeResult> results = combineRanks({times});
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].wrong)
      throw std::runtime_error("--baseline nccl: " + ncclFunctionName(c.kind) + " gave " +
                               std::to_string(results[i].wrong) + " wrong elements at " +
                               std::to_string(sizes[i].bytes) + " bytes (" + describe(c) +
                               "): collplan passes NCCL buffers it does not expect (a bug)");
    medians.push_back(results[i].timeUs);
  }
  return medians;
}

#endif  // COLLPLAN_HAVE_NCCL

}  // namespace collplan::bench
