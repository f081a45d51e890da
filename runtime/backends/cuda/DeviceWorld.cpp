// DeviceWorld: opening a world's devices and splitting each call into one launch per device.
#include "runtime/backends/cuda/DeviceWorld.h"

#include "runtime/exec/RuntimeError.h"

#include <limits>

namespace collplan::cuda {

uint64_t deviceTimeoutNs(const WaitPolicy &policy) {
  if (policy.timeout.count() <= 0) return std::numeric_limits<uint64_t>::max();
  return uint64_t(policy.timeout.count()) * 1'000'000ull;
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
                                                      groups_[g].ranks, ranks(),
                                                      /*shareAddresses=*/true, timeoutNs));
}

DeviceWorld::~DeviceWorld() {
  launches_.clear();  // their buffers before the FIFOs, the FIFOs before the devices
  fifos_.reset();
}

std::string DeviceWorld::describe() const {
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
