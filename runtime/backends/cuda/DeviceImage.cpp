// DeviceImage::appendRank: a prepared program's ops, waits and connections as device structs.
#include "runtime/backends/cuda/DeviceImage.h"

#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/BufRefText.h"

#include <algorithm>
#include <string>

namespace collplan::cuda {

uint32_t ConnectionTable::id(int sender, int receiver, uint32_t channel) {
  auto [it, added] = ids_.emplace(std::make_tuple(sender, receiver, channel), uint32_t(keys_.size()));
  if (added) keys_.push_back({sender, receiver, channel});
  return it->second;
}

void DeviceImage::appendRank(const PreparedProgram &program, const PreparedProgram::Resolved &res,
                             uint32_t localRank) {
  const std::vector<PreparedProgram::Op> &ops = program.ops();
  const std::vector<BufRef> &planRefs = program.refs();
  const uint32_t firstChannel = uint32_t(channels.size());
  // Device ops a channel has finished once plan op k of it has: fused chains are one device op.
  std::vector<std::vector<uint32_t>> finishedThrough(program.channels());
  for (uint32_t c = 0; c < program.channels(); ++c) {
    uint32_t deviceOps = 0;
    for (uint32_t i = program.channelBegin(c); i < program.channelBegin(c + 1);) {
      ++deviceOps;
      for (uint32_t k = 0; k < ops[i].fusedOps; ++k) finishedThrough[c].push_back(deviceOps);
      i += ops[i].fusedOps;
    }
  }
  auto bufferRef = [&](uint32_t ref) {
    return DeviceRef{Space(planRefs[ref].buf), 0, res.refOffset[ref]};
  };
  for (uint32_t c = 0; c < program.channels(); ++c) {
    DeviceChannel channel;
    channel.rank = localRank;
    channel.planChannel = c;
    channel.opBegin = uint32_t(this->ops.size());
    std::vector<uint32_t> drains;
    for (uint32_t i = program.channelBegin(c); i < program.channelBegin(c + 1);) {
      const PreparedProgram::Op &head = ops[i];
      const uint32_t last = i + head.fusedOps - 1;
      const PreparedProgram::Op &tail = ops[last];
      DeviceOp op;
      op.bytes = res.opBytes[i];
      largestOpBytes = std::max<uint64_t>(largestOpBytes, op.bytes);

      op.recvBegin = uint32_t(connectionIds.size());
      op.operandBegin = uint32_t(refs.size());
      for (uint32_t k = 0; k <= head.numSrcs; ++k) {
        if (head.recv != PreparedProgram::kNoConnection && k == head.recvPos) {
          refs.push_back({Space::Message, head.recv, 0});
          connectionIds.push_back(head.recv);
        }
        if (k < head.numSrcs) refs.push_back(bufferRef(head.srcBegin + k));
      }
      for (uint32_t j = i + 1; j <= last; ++j) {
        refs.push_back({Space::Message, ops[j].recv, 0});
        connectionIds.push_back(ops[j].recv);
      }
      op.numOperands = uint32_t(refs.size()) - op.operandBegin;
      op.numRecvs = uint32_t(connectionIds.size()) - op.recvBegin;

      op.targetBegin = uint32_t(refs.size());
      for (uint32_t k = 0; k < tail.numDsts; ++k) refs.push_back(bufferRef(tail.dstBegin + k));
      const size_t staged = res.stagingOffset[last];
      if (staged != PreparedProgram::kNotStaged && op.bytes)
        refs.push_back({Space::Staging, 0, staged});
      op.numTargets = uint32_t(refs.size()) - op.targetBegin;
      if (op.numOperands > uint32_t(kMaxOpPointers) || op.numTargets > uint32_t(kMaxOpPointers))
        throw RuntimeError(ErrorCode::Plan,
                           "plan \"" + program.plan().algorithm + "\": " +
                               formatOpPath(program.rank(), c, i - program.channelBegin(c)) +
                               ": " + std::to_string(std::max(op.numOperands, op.numTargets)) +
                               " operands or targets; the cuda backend runs at most " +
                               std::to_string(kMaxOpPointers));

      op.sendBegin = uint32_t(connectionIds.size());
      for (uint32_t k = 0; k < tail.numSends; ++k) {
        const uint32_t id = program.sends()[tail.sendBegin + k];
        connectionIds.push_back(id);
        if (std::find(drains.begin(), drains.end(), id) == drains.end()) drains.push_back(id);
      }
      op.numSends = tail.numSends;
      if (op.numSends && op.bytes) {
        if (staged != PreparedProgram::kNotStaged) {
          op.publish = op.targetBegin + op.numTargets - 1;
        } else {
          refs.push_back(bufferRef(uint32_t(tail.publishRef)));
          op.publish = uint32_t(refs.size()) - 1;
        }
      }

      op.waitBegin = uint32_t(waits.size());
      for (uint32_t j = i; j <= last; ++j)
        for (uint32_t k = 0; k < ops[j].numAfter; ++k) {
          const PreparedProgram::Wait &w = program.after()[ops[j].afterBegin + k];
          waits.push_back({firstChannel + w.channel, finishedThrough[w.channel][w.op]});
        }
      op.numWaits = uint32_t(waits.size()) - op.waitBegin;
      this->ops.push_back(op);
      i = last + 1;
    }
    channel.opEnd = uint32_t(this->ops.size());
    channel.drainBegin = uint32_t(connectionIds.size());
    connectionIds.insert(connectionIds.end(), drains.begin(), drains.end());
    channel.numDrains = uint32_t(drains.size());
    channels.push_back(channel);
  }
}

}  // namespace collplan::cuda
