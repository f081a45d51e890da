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

namespace {

/// Per plan channel, per plan op k: how many device ops the channel has finished once plan op
/// k has (a fused chain is one device op, finished with its last plan op).
std::vector<std::vector<uint32_t>> finishedThroughOf(const PreparedProgram &program) {
  const std::vector<PreparedProgram::Op> &ops = program.ops();
  std::vector<std::vector<uint32_t>> finishedThrough(program.channels());
  for (uint32_t c = 0; c < program.channels(); ++c) {
    uint32_t deviceOps = 0;
    for (uint32_t i = program.channelBegin(c); i < program.channelBegin(c + 1);) {
      ++deviceOps;
      for (uint32_t k = 0; k < ops[i].fusedOps; ++k) finishedThrough[c].push_back(deviceOps);
      i += ops[i].fusedOps;
    }
  }
  return finishedThrough;
}

}  // namespace

/// What appendRank needs about the rank while it turns plan ops into device ops.
struct DeviceImage::RankContext {
  const PreparedProgram &program;
  const PreparedProgram::Resolved &res;
  uint32_t firstChannel;  ///< the image's index of the rank's channel 0
  std::vector<std::vector<uint32_t>> finishedThrough;

  DeviceRef bufferRef(uint32_t ref) const {
    return DeviceRef{Space(program.refs()[ref].buf), 0, res.refOffset[ref]};
  }
};

void DeviceImage::appendRank(const PreparedProgram &program, const PreparedProgram::Resolved &res,
                             uint32_t localRank) {
  const RankContext rank{program, res, uint32_t(channels.size()), finishedThroughOf(program)};
  for (uint32_t c = 0; c < program.channels(); ++c) {
    DeviceChannel channel;
    channel.rank = localRank;
    channel.planChannel = c;
    channel.opBegin = uint32_t(ops.size());
    std::vector<uint32_t> drains;
    for (uint32_t i = program.channelBegin(c); i < program.channelBegin(c + 1);)
      i = appendOp(rank, c, i, drains);
    channel.opEnd = uint32_t(ops.size());
    channel.drainBegin = uint32_t(connectionIds.size());
    connectionIds.insert(connectionIds.end(), drains.begin(), drains.end());
    channel.numDrains = uint32_t(drains.size());
    channels.push_back(channel);
  }
}

uint32_t DeviceImage::appendOp(const RankContext &rank, uint32_t c, uint32_t i,
                               std::vector<uint32_t> &drains) {
  const PreparedProgram &program = rank.program;
  const uint32_t last = i + program.ops()[i].fusedOps - 1;
  DeviceOp op;
  op.bytes = rank.res.opBytes[i];
  largestOpBytes = std::max<uint64_t>(largestOpBytes, op.bytes);
  appendOperands(rank, i, last, op);
  const size_t staged = rank.res.stagingOffset[last];
  appendTargets(rank, last, staged, op);
  if (op.numOperands > uint32_t(kMaxOpPointers) || op.numTargets > uint32_t(kMaxOpPointers))
    throw RuntimeError(ErrorCode::Plan,
                       "plan \"" + program.plan().algorithm + "\": " +
                           formatOpPath(program.rank(), c, i - program.channelBegin(c)) + ": " +
                           std::to_string(std::max(op.numOperands, op.numTargets)) +
                           " operands or targets; the cuda backend runs at most " +
                           std::to_string(kMaxOpPointers));
  appendSends(rank, last, staged, op, drains);
  appendWaits(rank, i, last, op);
  ops.push_back(op);
  return last + 1;
}

void DeviceImage::appendOperands(const RankContext &rank, uint32_t i, uint32_t last,
                                 DeviceOp &op) {
  const std::vector<PreparedProgram::Op> &planOps = rank.program.ops();
  const PreparedProgram::Op &head = planOps[i];
  op.recvBegin = uint32_t(connectionIds.size());
  op.operandBegin = uint32_t(refs.size());
  for (uint32_t k = 0; k <= head.numSrcs; ++k) {
    if (head.recv != PreparedProgram::kNoConnection && k == head.recvPos) {
      refs.push_back({Space::Message, head.recv, 0});
      connectionIds.push_back(head.recv);
    }
    if (k < head.numSrcs) refs.push_back(rank.bufferRef(head.srcBegin + k));
  }
  for (uint32_t j = i + 1; j <= last; ++j) {  // the messages of a fused chain
    refs.push_back({Space::Message, planOps[j].recv, 0});
    connectionIds.push_back(planOps[j].recv);
  }
  op.numOperands = uint32_t(refs.size()) - op.operandBegin;
  op.numRecvs = uint32_t(connectionIds.size()) - op.recvBegin;
}

void DeviceImage::appendTargets(const RankContext &rank, uint32_t last, size_t staged,
                                DeviceOp &op) {
  const PreparedProgram::Op &tail = rank.program.ops()[last];
  op.targetBegin = uint32_t(refs.size());
  for (uint32_t k = 0; k < tail.numDsts; ++k) refs.push_back(rank.bufferRef(tail.dstBegin + k));
  if (staged != PreparedProgram::kNotStaged && op.bytes)
    refs.push_back({Space::Staging, 0, staged});
  op.numTargets = uint32_t(refs.size()) - op.targetBegin;
}

void DeviceImage::appendSends(const RankContext &rank, uint32_t last, size_t staged,
                              DeviceOp &op, std::vector<uint32_t> &drains) {
  const PreparedProgram::Op &tail = rank.program.ops()[last];
  op.sendBegin = uint32_t(connectionIds.size());
  for (uint32_t k = 0; k < tail.numSends; ++k) {
    const uint32_t id = rank.program.sends()[tail.sendBegin + k];
    connectionIds.push_back(id);
    if (std::find(drains.begin(), drains.end(), id) == drains.end()) drains.push_back(id);
  }
  op.numSends = tail.numSends;
  if (!op.numSends || !op.bytes) return;
  if (staged != PreparedProgram::kNotStaged) {
    op.publish = op.targetBegin + op.numTargets - 1;  // the staging target
  } else {
    refs.push_back(rank.bufferRef(uint32_t(tail.publishRef)));
    op.publish = uint32_t(refs.size()) - 1;
  }
}

void DeviceImage::appendWaits(const RankContext &rank, uint32_t i, uint32_t last, DeviceOp &op) {
  const std::vector<PreparedProgram::Op> &planOps = rank.program.ops();
  op.waitBegin = uint32_t(waits.size());
  for (uint32_t j = i; j <= last; ++j)
    for (uint32_t k = 0; k < planOps[j].numAfter; ++k) {
      const PreparedProgram::Wait &w = rank.program.after()[planOps[j].afterBegin + k];
      waits.push_back({rank.firstChannel + w.channel, rank.finishedThrough[w.channel][w.op]});
    }
  op.numWaits = uint32_t(waits.size()) - op.waitBegin;
}

}  // namespace collplan::cuda
