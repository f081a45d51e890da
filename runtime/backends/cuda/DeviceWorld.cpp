// DeviceWorld: opening a world's devices and splitting each call into one launch per device.
#include "runtime/backends/cuda/DeviceWorld.h"

#include "runtime/exec/EnvSettings.h"
#include "runtime/exec/RuntimeError.h"

#include <limits>

namespace collplan::cuda {

uint64_t deviceTimeoutNs(const WaitPolicy &policy) {
  if (policy.timeout.count() <= 0) return std::numeric_limits<uint64_t>::max();
  return uint64_t(policy.timeout.count()) * 1'000'000ull;
}

size_t ipcStagingBytesFromEnv() {
  return size_t(unsignedFromEnv("COLLPLAN_CUDA_IPC_STAGING_BYTES", 256ull << 20,
                                "a number of bytes from 1048576 to 1099511627776", 1ull << 40,
                                1ull << 20));
}

namespace {

/// The FIFOs of a world of processes: in the receiver's arena, at (sender, channel).
class IpcFifos final : public FifoPlacement {
public:
  explicit IpcFifos(std::vector<char *> arenaOfRank) : arenaOfRank_(std::move(arenaOfRank)) {}
  DeviceFifo *fifo(uint32_t, const ConnectionTable::Key &key) override {
    if (key.channel >= kIpcChannels)
      throw RuntimeError(ErrorCode::Plan,
                         "the plan sends from rank " + std::to_string(key.sender) + " to rank " +
                             std::to_string(key.receiver) + " on channel " +
                             std::to_string(key.channel) + "; a world of processes has FIFOs for " +
                             std::to_string(kIpcChannels) + " channels");
    return reinterpret_cast<DeviceFifo *>(arenaOfRank_[size_t(key.receiver)]) +
           size_t(key.sender) * kIpcChannels + key.channel;
  }

private:
  std::vector<char *> arenaOfRank_;
};

}  // namespace

DeviceWorld::DeviceWorld(int ranks, int rank, int device, const std::string &job,
                         const TargetFactory &open, const WaitPolicy &policy, size_t stagingBytes)
    : deviceOfRank_(size_t(std::max(ranks, 0)), -1), localRank_(rank), groups_{{device, {rank}}},
      groupOfRank_(size_t(std::max(ranks, 0)), 0) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw RuntimeError(ErrorCode::InvalidArgument, "rank " + std::to_string(rank) +
                                                       " of a world of " + std::to_string(ranks) +
                                                       " processes");
  targets_.push_back(open(device));
  DeviceTarget &target = *targets_[0];
  const size_t fifoBytes = sizeof(DeviceFifo) * size_t(ranks) * kIpcChannels;
  arena_ = target.allocate(fifoBytes + stagingBytes);
  try {
    connectPeers(ranks, rank, device, job, policy, fifoBytes, stagingBytes);
  } catch (...) {
    for (void *mapped : peerMappings_) target.closeMemory(mapped);
    target.release(arena_);
    throw;
  }
}

void DeviceWorld::connectPeers(int ranks, int rank, int device, const std::string &job,
                               const WaitPolicy &policy, size_t fifoBytes, size_t stagingBytes) {
  DeviceTarget &target = *targets_[0];
  IpcEntry mine;
  mine.device = device;
  mine.process = thisProcess();
  mine.arenaBytes = fifoBytes + stagingBytes;
  const IpcHandle handle = target.exportMemory(arena_);
  std::copy(std::begin(handle.bytes), std::end(handle.bytes), mine.handle);
  board_ = std::make_unique<IpcBoard>(IpcBoard::open(job, ranks, rank, policy));
  policy_ = policy;
  board_->publish(mine);
  const std::vector<IpcEntry> entries = board_->waitForAll(policy);

  std::vector<char *> arenaOfRank(size_t(ranks), nullptr), stagingOfRank(size_t(ranks), nullptr);
  for (int q = 0; q < ranks; ++q) {
    const IpcEntry &entry = entries[size_t(q)];
    deviceOfRank_[size_t(q)] = entry.device;
    if (entry.arenaBytes != mine.arenaBytes)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "rank " + std::to_string(q) + "'s arena holds " +
                             std::to_string(entry.arenaBytes) + " bytes, rank " +
                             std::to_string(rank) + "'s " + std::to_string(mine.arenaBytes) +
                             ": every process must set COLLPLAN_CUDA_IPC_STAGING_BYTES alike");
    void *mapped = arena_;
    if (q != rank) {
      IpcHandle theirs;
      std::copy(std::begin(entry.handle), std::end(entry.handle), theirs.bytes);
      mapped = target.openMemory(theirs);
      peerMappings_.push_back(mapped);
    }
    arenaOfRank[size_t(q)] = static_cast<char *>(mapped);
    stagingOfRank[size_t(q)] = static_cast<char *>(mapped) + fifoBytes;
  }
  fifos_ = std::make_unique<IpcFifos>(arenaOfRank);
  MappedStaging staging{stagingOfRank[size_t(rank)], stagingBytes, stagingOfRank};
  launches_.push_back(std::make_unique<LaunchGroup>(target, *fifos_, table_, std::vector<int>{rank},
                                                    ranks, deviceTimeoutNs(policy),
                                                    std::move(staging)));
}

DeviceWorld::DeviceWorld(std::vector<int> deviceOfRank, const TargetFactory &open,
                         uint64_t timeoutNs)
    : deviceOfRank_(std::move(deviceOfRank)), groups_(groupByDevice(deviceOfRank_)),
      groupOfRank_(deviceOfRank_.size()) {
  if (deviceOfRank_.empty())
    throw RuntimeError(ErrorCode::InvalidArgument, "a cuda world needs at least one rank");
  for (size_t g = 0; g < groups_.size(); ++g) {
    for (int rank : groups_[g].ranks) groupOfRank_[size_t(rank)] = g;
    targets_.push_back(open(groups_[g].device));
  }
  fifos_ = std::make_unique<FifoStore>(*targets_[0]);
  for (size_t g = 0; g < groups_.size(); ++g)
    launches_.push_back(std::make_unique<LaunchGroup>(*targets_[g], *fifos_, table_,
                                                      groups_[g].ranks, ranks(), timeoutNs));
}

DeviceWorld::~DeviceWorld() {
  if (board_) board_->leave(policy_);
  launches_.clear();  // their buffers before the FIFOs, the FIFOs before the devices
  fifos_.reset();
  for (void *mapped : peerMappings_) targets_[0]->closeMemory(mapped);
  if (arena_) targets_[0]->release(arena_);
}

std::string DeviceWorld::describe() const {
  if (localRank_ >= 0)
    return "rank " + std::to_string(localRank_) + " of " + std::to_string(ranks()) +
           " processes (ipc processes) on " + targets_[0]->describe();
  if (groups_.size() == 1)
    return std::to_string(ranks()) + (ranks() == 1 ? " rank on " : " virtual ranks on ") +
           targets_[0]->describe();
  std::string out = std::to_string(ranks()) + " ranks on " + std::to_string(groups_.size()) +
                    " devices (" + std::string(toString(mode())) + "): ";
  for (size_t g = 0; g < groups_.size(); ++g) out += (g ? ", " : "") + targets_[g]->describe();
  return out;
}

void DeviceWorld::enqueue(const Plan &plan, const std::vector<CallBuffers> &calls,
                          const std::vector<StreamHandle> &streams) {
  if (calls.size() != deviceOfRank_.size() || streams.size() != groups_.size())
    throw RuntimeError(ErrorCode::Internal,
                       "a call of " + std::to_string(ranks()) + " ranks on " +
                           std::to_string(groups_.size()) + " devices got " +
                           std::to_string(calls.size()) + " calls and " +
                           std::to_string(streams.size()) + " streams");
  std::vector<CallBuffers> ofGroup;
  for (size_t g = 0; g < groups_.size(); ++g) {
    ofGroup.clear();
    for (int rank : groups_[g].ranks) ofGroup.push_back(calls[size_t(rank)]);
    enqueueGroup(g, plan, ofGroup, streams[g]);
  }
}

void DeviceWorld::enqueueGroup(size_t g, const Plan &plan,
                               const std::vector<CallBuffers> &callsOfGroup, StreamHandle stream) {
  launches_[g]->enqueue(plan, callsOfGroup, stream);
}

void DeviceWorld::checkFailure() {
  for (const std::unique_ptr<LaunchGroup> &launch : launches_) launch->checkFailure();
}

}  // namespace collplan::cuda
