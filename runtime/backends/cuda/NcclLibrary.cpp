// libnccl loaded with dlopen at first use, and collplan's calls mapped onto NCCL's.
#include "runtime/backends/cuda/NcclLibrary.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>

#include <exception>
#include <stdexcept>
#include <type_traits>
#include <vector>

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0) && defined(__CUDA_BF16_TYPES_EXIST__)
#define COLLPLAN_NCCL_HAS_BF16 1
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 7, 0)
#define COLLPLAN_NCCL_HAS_SEND_RECV 1
#endif

#ifndef COLLPLAN_NCCL_LIBRARY
#define COLLPLAN_NCCL_LIBRARY "libnccl.so.2"
#endif

namespace collplan::cuda {
namespace {

/// NCCL's entry points in the library loaded; `failure` says why it is not loaded.
struct NcclApi {
  decltype(&ncclGetVersion) getVersion = nullptr;
  decltype(&ncclGetErrorString) getErrorString = nullptr;
  decltype(&ncclCommInitAll) commInitAll = nullptr;
  decltype(&ncclCommDestroy) commDestroy = nullptr;
  decltype(&ncclCommAbort) commAbort = nullptr;
  decltype(&ncclGroupStart) groupStart = nullptr;
  decltype(&ncclGroupEnd) groupEnd = nullptr;
  decltype(&ncclAllReduce) allReduce = nullptr;
  decltype(&ncclAllGather) allGather = nullptr;
  decltype(&ncclReduceScatter) reduceScatter = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclReduce) reduce = nullptr;
#ifdef COLLPLAN_NCCL_HAS_SEND_RECV
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
#endif
  const char *(*lastError)(ncclComm_t) = nullptr;  ///< NCCL 2.13 on; may be absent
  std::string failure;
};

/// Opens the library CMake found, else the one the loader finds by name.
void *openLibrary(std::string &failure) {
  for (const char *path : {COLLPLAN_NCCL_LIBRARY, "libnccl.so.2"}) {
    if (void *library = ::dlopen(path, RTLD_NOW | RTLD_LOCAL)) return library;
    const char *why = ::dlerror();
    failure += (failure.empty() ? "" : "; ") + std::string(why ? why : path);
  }
  failure = "cannot load NCCL (" + failure + ")";
  return nullptr;
}

NcclApi loadApi() {
  NcclApi api;
  void *library = openLibrary(api.failure);
  if (!library) return api;
  const auto symbol = [&](auto &entry, const char *name) {
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(::dlsym(library, name));
    if (!entry && api.failure.empty()) api.failure = std::string("libnccl has no ") + name;
  };
  symbol(api.getVersion, "ncclGetVersion");
  symbol(api.getErrorString, "ncclGetErrorString");
  symbol(api.commInitAll, "ncclCommInitAll");
  symbol(api.commDestroy, "ncclCommDestroy");
  symbol(api.commAbort, "ncclCommAbort");
  symbol(api.groupStart, "ncclGroupStart");
  symbol(api.groupEnd, "ncclGroupEnd");
  symbol(api.allReduce, "ncclAllReduce");
  symbol(api.allGather, "ncclAllGather");
  symbol(api.reduceScatter, "ncclReduceScatter");
  symbol(api.broadcast, "ncclBroadcast");
  symbol(api.reduce, "ncclReduce");
#ifdef COLLPLAN_NCCL_HAS_SEND_RECV
  symbol(api.send, "ncclSend");
  symbol(api.recv, "ncclRecv");
#endif
  api.lastError = reinterpret_cast<const char *(*)(ncclComm_t)>(::dlsym(library, "ncclGetLastError"));
  return api;
}

/// The library, loaded once; std::invalid_argument saying why where it cannot be.
const NcclApi &nccl() {
  static const NcclApi api = loadApi();
  if (!api.failure.empty()) throw std::invalid_argument(api.failure);
  return api;
}

/// Throws std::runtime_error naming the NCCL call, NCCL's reason and its last error message.
void checkNccl(ncclResult_t result, const char *call) {
  if (result == ncclSuccess) return;
  std::string message = std::string(call) + " failed: " + nccl().getErrorString(result);
  const char *last = nccl().lastError ? nccl().lastError(nullptr) : nullptr;
  if (last && *last) message += std::string(" (") + last + ")";
  throw std::runtime_error(message);
}

void checkCuda(cudaError_t result, const char *call) {
  if (result != cudaSuccess)
    throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorString(result));
}

ncclDataType_t ncclType(DType dtype) {
  switch (dtype) {
  case DType::F32: return ncclFloat32;
  case DType::F64: return ncclFloat64;
  case DType::F16: return ncclFloat16;
#ifdef COLLPLAN_NCCL_HAS_BF16
  case DType::BF16: return ncclBfloat16;
#else
  case DType::BF16: break;  // refused by checkNcclCall
#endif
  case DType::I32: return ncclInt32;
  case DType::I64: return ncclInt64;
  case DType::U8: return ncclUint8;
  }
  throw std::logic_error("no NCCL type for " + std::string(toString(dtype)));
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

/// One rank's part of a call: its buffers, communicator and stream, and the call's shape.
struct RankCall {
  CollectiveKind kind = CollectiveKind::AllReduce;
  int rank = 0, ranks = 0, root = 0;
  const CallBuffers *buffers = nullptr;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

/// Enqueues the sends and receives of alltoall, gather or scatter for one rank: every (peer,
/// block) pair it sends or receives. `*name` is set to the NCCL function called.
ncclResult_t enqueuePairs(const RankCall &call, const char **name) {
#ifdef COLLPLAN_NCCL_HAS_SEND_RECV
  const CallBuffers &b = *call.buffers;
  const size_t block = b.count * dtypeSize(b.dtype);
  const bool all = call.kind == CollectiveKind::AllToAll, isRoot = call.rank == call.root;
  const bool sendsAll = all || (call.kind == CollectiveKind::Scatter && isRoot);
  const bool receivesAll = all || (call.kind == CollectiveKind::Gather && isRoot);
  for (int p = 0; p < call.ranks; ++p) {
    ncclResult_t result = ncclSuccess;
    if (sendsAll || (p == call.root && call.kind == CollectiveKind::Gather)) {
      *name = "ncclSend";
      const char *in = static_cast<const char *>(b.in) + size_t(sendsAll ? p : 0) * block;
      result = nccl().send(in, b.count, ncclType(b.dtype), p, call.comm, call.stream);
      if (result != ncclSuccess) return result;
    }
    if (receivesAll || (p == call.root && call.kind == CollectiveKind::Scatter)) {
      *name = "ncclRecv";
      char *out = static_cast<char *>(b.out) + size_t(receivesAll ? p : 0) * block;
      result = nccl().recv(out, b.count, ncclType(b.dtype), p, call.comm, call.stream);
      if (result != ncclSuccess) return result;
    }
  }
  return ncclSuccess;
#else
  (void)call;
  *name = "ncclSend";  // refused by checkNcclCall
  return ncclInvalidUsage;
#endif
}

/// Enqueues one rank's part of a call (inside the caller's group); `*name` is set to the NCCL
/// function called, for the error message.
ncclResult_t enqueueRank(const RankCall &call, const char **name) {
  const CallBuffers &b = *call.buffers;
  const NcclApi &api = nccl();
  const ncclDataType_t type = ncclType(b.dtype);
  *name = "ncclAllReduce";
  switch (call.kind) {
  case CollectiveKind::AllReduce:
    return api.allReduce(b.in, b.out, b.count, type, ncclOp(b.op), call.comm, call.stream);
  case CollectiveKind::AllGather:
    *name = "ncclAllGather";
    return api.allGather(b.in, b.out, b.count, type, call.comm, call.stream);
  case CollectiveKind::ReduceScatter:
    *name = "ncclReduceScatter";
    return api.reduceScatter(b.in, b.out, b.count, type, ncclOp(b.op), call.comm, call.stream);
  case CollectiveKind::Broadcast:
    *name = "ncclBroadcast";
    return api.broadcast(b.in, b.out, b.count, type, call.root, call.comm, call.stream);
  case CollectiveKind::Reduce:
    *name = "ncclReduce";
    return api.reduce(b.in, b.out, b.count, type, ncclOp(b.op), call.root, call.comm,
                      call.stream);
  case CollectiveKind::Barrier:
    return api.allReduce(b.in, b.out, 1, ncclFloat32, ncclSum, call.comm, call.stream);
  case CollectiveKind::AllToAll:
  case CollectiveKind::Gather:
  case CollectiveKind::Scatter: return enqueuePairs(call, name);
  }
  return ncclInvalidUsage;
}

/// One communicator per rank of a job; aborted instead of destroyed when an exception unwinds
/// it, so a communicator left with work in flight by a failed call cannot hang the tool.
class NcclCalls final : public NativeDeviceCalls {
public:
  explicit NcclCalls(DeviceJob &job)
      : job_(job), comms_(size_t(job.ranks()), nullptr), exceptions_(std::uncaught_exceptions()) {
    std::vector<int> devices;
    for (int r = 0; r < job.ranks(); ++r) devices.push_back(job.deviceOf(r));
    checkNccl(nccl().commInitAll(comms_.data(), job.ranks(), devices.data()), "ncclCommInitAll");
  }
  ~NcclCalls() override {
    const bool unwinding = std::uncaught_exceptions() > exceptions_;
    for (ncclComm_t comm : comms_)
      if (comm) unwinding ? nccl().commAbort(comm) : nccl().commDestroy(comm);
  }

  void enqueue(CollectiveKind kind, int root, const std::vector<CallBuffers> &calls) override {
    checkNccl(nccl().groupStart(), "ncclGroupStart");
    const char *failedCall = "";
    ncclResult_t result = ncclSuccess;
    for (int r = 0; r < job_.ranks() && result == ncclSuccess; ++r)
      result = enqueueRank({kind, r, job_.ranks(), root, &calls[size_t(r)], comms_[size_t(r)],
                            static_cast<cudaStream_t>(job_.streamOf(r))},
                           &failedCall);
    const ncclResult_t ended = nccl().groupEnd();  // closes the group on every path
    checkNccl(result, failedCall);
    checkNccl(ended, "ncclGroupEnd");
  }

private:
  const CurrentDeviceGuard currentDevice_;  ///< first in, last out
  DeviceJob &job_;
  std::vector<ncclComm_t> comms_;
  int exceptions_;
};

}  // namespace

std::string ncclLibraryVersion() {
  int code = 0;
  try {
    if (nccl().getVersion(&code) != ncclSuccess) return "NCCL";
  } catch (const std::invalid_argument &) {
    return "NCCL";
  }
  const bool wide = code >= 10000;  // NCCL_VERSION's encoding from 2.9 on
  const int major = wide ? code / 10000 : code / 1000;
  const int minor = wide ? code / 100 % 100 : code / 100 % 10;
  return "NCCL " + std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(code % 100);
}

void checkNcclCall(CollectiveKind kind, DType dtype) {
  (void)nccl();  // throws where libnccl cannot be loaded
#ifndef COLLPLAN_NCCL_HAS_BF16
  if (dtype == DType::BF16)
    throw std::invalid_argument("this build's NCCL has no bf16 type (NCCL 2.10 with CUDA 11 or "
                                "later has it)");
#endif
#ifndef COLLPLAN_NCCL_HAS_SEND_RECV
  if (kind == CollectiveKind::AllToAll || kind == CollectiveKind::Gather ||
      kind == CollectiveKind::Scatter)
    throw std::invalid_argument(std::string(toString(kind)) +
                                " needs ncclSend/ncclRecv, which NCCL has from 2.7");
#endif
  (void)kind, (void)dtype;
}

std::unique_ptr<NativeDeviceCalls> openNcclCalls(DeviceJob &job) {
  return std::make_unique<NcclCalls>(job);
}

}  // namespace collplan::cuda
