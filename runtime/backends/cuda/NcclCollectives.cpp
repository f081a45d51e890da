// NCCL's collectives on a DeviceJob's ranks: names and placement checks (every build), and the
// calls themselves through libnccl loaded at first use (builds that found nccl.h).
#include "runtime/backends/cuda/NcclCollectives.h"

#include "runtime/backends/cuda/DeviceSetup.h"

#include <map>
#include <stdexcept>

#ifdef COLLPLAN_HAVE_NCCL
#include "runtime/backends/cuda/NcclLibrary.h"
#endif

namespace collplan::cuda {
namespace {

/// "0,1,2,3": one device per rank, for the message that asks for it.
std::string oneDevicePerRank(int ranks) {
  if (ranks > 8) return "0,1,...," + std::to_string(ranks - 1);
  std::string list;
  for (int r = 0; r < ranks; ++r) list += (r ? "," : "") + std::to_string(r);
  return list;
}

class Nccl final : public NativeCollectives {
public:
  std::string functionName(CollectiveKind kind) const override {
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

  std::string library() const override {
#ifdef COLLPLAN_HAVE_NCCL
    return ncclLibraryVersion();
#else
    return "";
#endif
  }

  void check(CollectiveKind kind, DType dtype) const override {
#ifdef COLLPLAN_HAVE_NCCL
    checkNcclCall(kind, dtype);
#else
    (void)kind, (void)dtype;
    throw std::invalid_argument("this build has no NCCL (nccl.h and libnccl were not found when "
                                "CMake ran); install NCCL next to the CUDA toolkit and reconfigure");
#endif
  }

  void checkJob(const DeviceJob &job) const override {
    std::map<int, int> rankOnDevice;
    for (int r = 0; r < job.ranks(); ++r) {
      const auto [it, fresh] = rankOnDevice.emplace(job.deviceOf(r), r);
      if (!fresh)
        throw std::invalid_argument(
            "NCCL allows one rank per GPU, but ranks " + std::to_string(it->second) + " and " +
            std::to_string(r) + " are both on device " + std::to_string(it->first) + " (" +
            job.describe() + "): set " + kDevicesVariable + " to one device per rank (e.g. " +
            kDevicesVariable + "=" + oneDevicePerRank(job.ranks()) + ") on a machine with " +
            std::to_string(job.ranks()) + " GPUs or more");
    }
  }

  std::unique_ptr<NativeDeviceCalls> open(DeviceJob &job) const override {
#ifdef COLLPLAN_HAVE_NCCL
    return openNcclCalls(job);
#else
    (void)job;
    check(CollectiveKind::AllReduce, DType::F32);  // throws: no NCCL
    return nullptr;
#endif
  }
};

}  // namespace

const NativeCollectives &ncclCollectives() {
  static const Nccl nccl;
  return nccl;
}

bool ncclBuiltIn() {
#ifdef COLLPLAN_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

}  // namespace collplan::cuda
