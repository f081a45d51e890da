// PreparedProgram: connections, recv-reduce chain fusion and in-place publishing analysis.
#include "runtime/exec/PreparedProgram.h"

#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/BufRefText.h"
#include "runtime/plan/FusedChains.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/ProgramOrder.h"

#include <algorithm>
#include <optional>
#include <string>

namespace collplan {
namespace {

[[noreturn]] void planError(const Plan &plan, int rank, uint32_t channel, size_t opIndex,
                            const std::string &why) {
  throw RuntimeError(ErrorCode::Plan, "plan \"" + plan.algorithm + "\" (" +
                                          std::string(toString(plan.collective)) +
                                          "): " + formatOpPath(rank, channel, opIndex) + ": " +
                                          why);
}

}  // namespace

PreparedProgram::PreparedProgram(const Plan &plan, int rank, ConnectionSource &connections)
    : plan_(&plan), rank_(rank) {
  if (plan.ranks != connections.ranks())
    throw RuntimeError(ErrorCode::Plan, "plan \"" + plan.algorithm + "\" is for " +
                                            std::to_string(plan.ranks) +
                                            " ranks but the communicator has " +
                                            std::to_string(connections.ranks()));
  if (rank < 0 || rank >= plan.ranks || plan.programs.size() != size_t(plan.ranks) ||
      (plan.onlyRank >= 0 && plan.onlyRank != rank))
    throw RuntimeError(ErrorCode::Plan, "plan \"" + plan.algorithm + "\" has no program for rank " +
                                            std::to_string(rank));
  const int blocks = messageBlocks(plan.collective, plan.ranks);
  unitsPerBlock_ = blocks > 0 ? plan.units / uint32_t(blocks) : 0;
  blockShift_ = collplan::inPlaceBlockShift(plan.collective, plan.root, rank);
  readOps(connections);
  analyseFusion();
  analysePublishing(connections);
}

void PreparedProgram::readOps(ConnectionSource &connections) {
  const Plan &plan = *plan_;
  const std::vector<Channel> &channels = plan.programs[size_t(rank_)].channels;
  const uint32_t limits[3] = {bufferUnits(plan, BufferKind::In, rank_),
                              bufferUnits(plan, BufferKind::Out, rank_), plan.scratchUnits};
  channelBegin_.push_back(0);
  for (uint32_t c = 0; c < channels.size(); ++c) {
    for (size_t i = 0; i < channels[c].ops.size(); ++i) {
      const PlanOp &p = channels[c].ops[i];
      Op op;
      auto fail = [&](const std::string &why) { planError(plan, rank_, c, i, why); };
      auto addRefs = [&](const std::vector<BufRef> &list, uint32_t &begin, uint32_t &count) {
        begin = uint32_t(refs_.size());
        count = uint32_t(list.size());
        for (const BufRef &ref : list) {
          if (uint64_t(ref.offset) + ref.length > limits[int(ref.buf)])
            fail(std::string(toString(ref.buf)) + " range [" + std::to_string(ref.offset) + ", " +
                 std::to_string(uint64_t(ref.offset) + ref.length) + ") exceeds the buffer's " +
                 std::to_string(limits[int(ref.buf)]) + " units");
          if (ref.length != p.length()) fail("buffer references of different lengths");
          refs_.push_back(ref);
        }
      };
      addRefs(p.srcs, op.srcBegin, op.numSrcs);
      addRefs(p.dsts, op.dstBegin, op.numDsts);
      op.recvPos = p.recvPos;
      if (p.recv && p.recvPos > p.srcs.size())
        fail("recv_pos " + std::to_string(p.recvPos) + " is past the " +
             std::to_string(p.srcs.size()) + " srcs");
      if (p.numOperands() == 0 && (!p.dsts.empty() || !p.sends.empty()) && p.length() > 0)
        fail("writes a value but has no operand");
      if (p.numOperands() > 1 && !plan.op)
        fail("reduces " + std::to_string(p.numOperands()) +
             " operands but the plan has no reduction op");
      auto checkPeer = [&](int32_t peer) {
        if (peer < 0 || peer >= plan.ranks || peer == rank_)
          fail("names invalid peer " + std::to_string(peer));
      };
      if (p.recv) {
        checkPeer(*p.recv);
        op.recv = connections.connect(*p.recv, c, /*sending=*/false);
      }
      op.sendBegin = uint32_t(sends_.size());
      op.numSends = uint32_t(p.sends.size());
      for (int32_t q : p.sends) {
        checkPeer(q);
        sends_.push_back(connections.connect(q, c, /*sending=*/true));
      }
      op.afterBegin = uint32_t(after_.size());
      op.numAfter = uint32_t(p.after.size());
      for (const OpRef &dep : p.after) {
        if (dep.channel >= channels.size() || dep.channel == c ||
            dep.op >= channels[dep.channel].ops.size())
          fail("waits for an op that does not exist on another channel (channel " +
               std::to_string(dep.channel) + ", op " + std::to_string(dep.op) + ")");
        after_.push_back({dep.channel, dep.op});
      }
      ops_.push_back(op);
    }
    channelBegin_.push_back(uint32_t(ops_.size()));
  }
  if (ProgramOrder::findOrderCycle(plan.programs[size_t(rank_)]))
    throw RuntimeError(ErrorCode::Plan, "plan \"" + plan.algorithm + "\": the `after` references " +
                                            "of rank " + std::to_string(rank_) +
                                            " form a cycle");
}

void PreparedProgram::analyseFusion() {
  const std::vector<std::vector<uint32_t>> lengths =
      fusedChainLengths(plan_->programs[size_t(rank_)]);
  for (uint32_t c = 0; c < lengths.size(); ++c)
    for (size_t i = 0; i < lengths[c].size(); ++i)
      if (lengths[c][i] > 0) ops_[channelBegin_[c] + i].fusedOps = lengths[c][i];
}

bool PreparedProgram::mayBeOverwritten(size_t opIndex, const BufRef &range, AliasMode mode,
                                       const ProgramOrder *order) const {
  const int64_t shift = blockShift_ * int64_t(unitsPerBlock_);
  uint32_t channel = 0;
  while (channelBegin_[channel + 1] <= opIndex) ++channel;
  const OpRef sender{channel, uint32_t(opIndex - channelBegin_[channel])};
  for (uint32_t c = 0; c < channels(); ++c)
    for (uint32_t j = channelBegin_[c]; j < channelBegin_[c + 1]; ++j) {
      if (c == channel && j <= opIndex) continue;  // earlier on its own channel
      const Op &op = ops_[j];
      bool writes = false;
      for (uint32_t k = 0; k < op.numDsts && !writes; ++k)
        writes = rangesOverlap(refs_[op.dstBegin + k], range, shift, mode == AliasMode::InPlace);
      if (!writes) continue;
      if (c == channel || !order->before(OpRef{c, j - channelBegin_[c]}, sender)) return true;
    }
  return false;
}

void PreparedProgram::analysePublishing(const ConnectionSource &connections) {
  std::optional<ProgramOrder> order;  // between channels; one channel needs none
  if (channels() > 1) order.emplace(plan_->programs[size_t(rank_)]);
  for (size_t i = 0; i < ops_.size(); ++i) {
    Op &op = ops_[i];
    if (op.numSends == 0) continue;
    const bool soleSrc = op.numSrcs == 1 && op.recv == kNoConnection;
    op.publishRef = op.numDsts > 0 ? int32_t(op.dstBegin) : soleSrc ? int32_t(op.srcBegin) : -1;
    if (op.publishRef < 0) continue;
    const BufRef &where = refs_[size_t(op.publishRef)];
    if (!connections.peersCanRead(where.buf)) continue;
    for (AliasMode mode : {AliasMode::Separate, AliasMode::InPlace})
      op.publishInPlace[int(mode)] = !mayBeOverwritten(i, where, mode, order ? &*order : nullptr);
  }
}

const PreparedProgram::Resolved &
PreparedProgram::resolve(size_t count, DType dtype, AliasMode mode,
                         const std::array<size_t, 3> &inPlaceMinBytes) const {
  Resolved &r = resolved_;
  if (r.valid && r.count == count && r.dtype == dtype && r.mode == mode &&
      r.inPlaceMinBytes == inPlaceMinBytes)
    return r;
  const UnitLayout layout(*plan_, count, dtype);
  r.refOffset.resize(refs_.size());
  for (size_t k = 0; k < refs_.size(); ++k) r.refOffset[k] = layout.byteRange(refs_[k]).offset;
  r.opBytes.resize(ops_.size());
  r.stagingOffset.assign(ops_.size(), kNotStaged);
  size_t staging = 0;
  for (size_t i = 0; i < ops_.size(); ++i) {
    const Op &op = ops_[i];
    const uint32_t first = op.numSrcs ? op.srcBegin : op.dstBegin;
    r.opBytes[i] = (op.numSrcs || op.numDsts) ? layout.byteRange(refs_[first]).bytes : 0;
    const bool inPlace =
        op.publishInPlace[int(mode)] &&
        r.opBytes[i] >= inPlaceMinBytes[int(refs_[size_t(op.publishRef)].buf)];
    if (op.numSends && !inPlace) {
      r.stagingOffset[i] = staging;
      staging += (r.opBytes[i] + 63) & ~size_t(63);
    }
  }
  r.stagingBytes = staging;
  r.tmpBytes = layout.bufferBytes(plan_->scratchUnits);
  r.count = count;
  r.dtype = dtype;
  r.mode = mode;
  r.inPlaceMinBytes = inPlaceMinBytes;
  r.valid = true;
  return r;
}

}  // namespace collplan
