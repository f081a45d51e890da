// PreparedProgram: slot numbering, recv-reduce chain fusion and in-place publishing analysis.
#include "runtime/exec/PreparedProgram.h"

#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/PlanValidate.h"

#include <string>
#include <unordered_map>

namespace collplan {
namespace {

[[noreturn]] void planError(const Plan &plan, int rank, size_t opIndex, const std::string &why) {
  throw RuntimeError(ErrorCode::Plan, "plan \"" + plan.algorithm + "\" (" +
                                          std::string(toString(plan.collective)) +
                                          "): programs[" + std::to_string(rank) + "].ops[" +
                                          std::to_string(opIndex) + "]: " + why);
}

}  // namespace

PreparedProgram::PreparedProgram(const Plan &plan, int rank, const Transport &transport)
    : plan_(&plan), rank_(rank) {
  if (plan.ranks != transport.ranks())
    throw RuntimeError(ErrorCode::Plan, "plan \"" + plan.algorithm + "\" is for " +
                                            std::to_string(plan.ranks) +
                                            " ranks but the communicator has " +
                                            std::to_string(transport.ranks()));
  if (rank < 0 || rank >= plan.ranks || plan.programs.size() != size_t(plan.ranks))
    throw RuntimeError(ErrorCode::Plan, "plan \"" + plan.algorithm + "\" has no program for rank " +
                                            std::to_string(rank));
  const int blocks = messageBlocks(plan.collective, plan.ranks);
  unitsPerBlock_ = blocks > 0 ? plan.units / uint32_t(blocks) : 0;
  blockShift_ = collplan::inPlaceBlockShift(plan.collective, plan.root, rank);

  const std::vector<PlanOp> &program = plan.programs[size_t(rank)].ops;
  ops_.resize(program.size());
  const uint32_t limits[3] = {bufferUnits(plan, BufferKind::In, rank),
                              bufferUnits(plan, BufferKind::Out, rank), plan.scratchUnits};
  for (size_t i = 0; i < program.size(); ++i) {
    const PlanOp &p = program[i];
    Op &op = ops_[i];
    auto addRefs = [&](const std::vector<BufRef> &list, uint32_t &begin, uint32_t &count) {
      begin = uint32_t(refs_.size());
      count = uint32_t(list.size());
      for (const BufRef &ref : list) {
        if (uint64_t(ref.offset) + ref.length > limits[int(ref.buf)])
          planError(plan, rank, i, std::string(toString(ref.buf)) + " range [" +
                                       std::to_string(ref.offset) + ", " +
                                       std::to_string(uint64_t(ref.offset) + ref.length) +
                                       ") exceeds the buffer's " +
                                       std::to_string(limits[int(ref.buf)]) + " units");
        if (ref.length != p.length())
          planError(plan, rank, i, "buffer references of different lengths");
        refs_.push_back(ref);
      }
    };
    addRefs(p.srcs, op.srcBegin, op.numSrcs);
    addRefs(p.dsts, op.dstBegin, op.numDsts);
    op.recvPos = p.recvPos;
    if (p.recv && p.recvPos > p.srcs.size())
      planError(plan, rank, i, "recv_pos " + std::to_string(p.recvPos) + " is past the " +
                                   std::to_string(p.srcs.size()) + " srcs");
    if (p.numOperands() == 0 && (!p.dsts.empty() || !p.sends.empty()) && p.length() > 0)
      planError(plan, rank, i, "writes a value but has no operand");
    if (p.numOperands() > 1 && !plan.op)
      planError(plan, rank, i, "reduces " + std::to_string(p.numOperands()) +
                                   " operands but the plan has no reduction op");
  }
  analyseTransfers(transport);
  analyseFusion();
  analysePublishing(transport);
}

void PreparedProgram::analyseTransfers(const Transport &transport) {
  const Plan &plan = *plan_;
  // Slot numbers of every rank's sends, by transfer id (ids are unique per plan).
  struct SendSite {
    int sender;
    uint32_t slot;
    int receiver;
  };
  std::unordered_map<uint32_t, SendSite> byId;
  for (int r = 0; r < plan.ranks; ++r) {
    uint32_t slot = 0;
    for (const PlanOp &p : plan.programs[size_t(r)].ops)
      for (const Endpoint &e : p.sends) byId[e.id] = {r, slot++, e.peer};
    if (r == rank_ && slot > transport.slotCapacity())
      throw RuntimeError(ErrorCode::Plan,
                         "plan \"" + plan.algorithm + "\": rank " + std::to_string(r) +
                             " makes " + std::to_string(slot) + " sends per call but the backend " +
                             "has " + std::to_string(transport.slotCapacity()) + " slots per rank");
  }
  const std::vector<PlanOp> &program = plan.programs[size_t(rank_)].ops;
  uint32_t slot = 0;
  for (size_t i = 0; i < program.size(); ++i) {
    const PlanOp &p = program[i];
    Op &op = ops_[i];
    op.sendBegin = uint32_t(sends_.size());
    op.numSends = uint32_t(p.sends.size());
    for (const Endpoint &e : p.sends) {
      if (e.peer < 0 || e.peer >= plan.ranks || e.peer == rank_)
        planError(plan, rank_, i, "send to invalid peer " + std::to_string(e.peer));
      sends_.push_back({e.peer, slot++});
    }
    if (p.recv) {
      auto it = byId.find(p.recv->id);
      if (it == byId.end() || it->second.sender != p.recv->peer || it->second.receiver != rank_)
        planError(plan, rank_, i, "recv of transfer " + std::to_string(p.recv->id) + " from rank " +
                                      std::to_string(p.recv->peer) + " has no matching send");
      op.recvPeer = p.recv->peer;
      op.recvSlot = it->second.slot;
    }
  }
}

void PreparedProgram::analyseFusion() {
  const std::vector<PlanOp> &program = plan_->programs[size_t(rank_)].ops;
  for (size_t i = 0; i < program.size();) {
    const PlanOp &head = program[i];
    size_t end = i + 1;
    if (head.recv && head.numOperands() >= 2 && head.dsts.size() == 1 && head.sends.empty()) {
      const BufRef acc = head.dsts.front();
      while (end < program.size()) {
        const PlanOp &next = program[end];
        const bool continues = next.recv && next.srcs.size() == 1 && next.srcs.front() == acc &&
                               next.recvPos == 1 && next.dsts.size() == 1 &&
                               next.dsts.front() == acc;
        if (!continues) break;
        ++end;
        if (!next.sends.empty()) break;  // a send ends the chain: its value must be final
      }
    }
    ops_[i].fusedOps = uint32_t(end - i);
    i = end;
  }
}

bool PreparedProgram::writtenAfter(size_t opIndex, const BufRef &range, AliasMode mode) const {
  const int64_t shift = blockShift_ * int64_t(unitsPerBlock_);
  for (size_t j = opIndex + 1; j < ops_.size(); ++j) {
    const Op &op = ops_[j];
    for (uint32_t k = 0; k < op.numDsts; ++k)
      if (rangesOverlap(refs_[op.dstBegin + k], range, shift, mode == AliasMode::InPlace))
        return true;
  }
  return false;
}

void PreparedProgram::analysePublishing(const Transport &transport) {
  for (size_t i = 0; i < ops_.size(); ++i) {
    Op &op = ops_[i];
    if (op.numSends == 0) continue;
    const bool soleSrc = op.numSrcs == 1 && op.recvPeer < 0;
    op.publishRef = op.numDsts > 0 ? int32_t(op.dstBegin) : soleSrc ? int32_t(op.srcBegin) : -1;
    if (op.publishRef < 0) continue;
    const BufRef &where = refs_[size_t(op.publishRef)];
    if (!transport.peersCanRead(where.buf)) continue;
    for (AliasMode mode : {AliasMode::Separate, AliasMode::InPlace})
      op.publishInPlace[int(mode)] = !writtenAfter(i, where, mode);
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
