// ReductionSplitter: recv_reduce(_send) <-> recv into fresh tmp + reduce (+ send).
#include "compiler/export/SplitReductions.h"

#include <algorithm>

namespace collplan {

using mlir::coll::Instruction;

namespace {

bool isReceiveReduction(const Instruction &op) {
  return op.recv && op.step >= 0 && !op.srcs.empty() &&
         (op.kind == OpKind::RecvReduce || op.kind == OpKind::RecvReduceSend);
}

/// A stepped plain receive into tmp units that nothing else writes and every other use names
/// whole: its units can move.
bool isRelocatableReceive(const std::vector<Instruction> &ops, size_t i) {
  const Instruction &op = ops[i];
  if (!op.recv || op.step < 0 || !op.srcs.empty() || !op.sends.empty() || op.dsts.size() != 1 ||
      op.dsts.front().buf != BufferKind::Tmp)
    return false;
  const BufRef &range = op.dsts.front();
  auto overlapsPartly = [&](const BufRef &r) {
    return r.buf == BufferKind::Tmp && !(r == range) && r.offset < range.offset + range.length &&
           range.offset < r.offset + r.length;
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    for (const BufRef &r : ops[k].srcs)
      if (overlapsPartly(r)) return false;
    for (const BufRef &r : ops[k].dsts)
      if (overlapsPartly(r) || (k != i && r == range)) return false;
  }
  return true;
}

/// The index of the instruction of `ops` matching `pred`, or ops.size().
template <typename Pred>
size_t find(const std::vector<Instruction> &ops, Pred pred) {
  return size_t(std::find_if(ops.begin(), ops.end(), pred) - ops.begin());
}

}  // namespace

BufRef ReductionSplitter::allocate(uint32_t phase, uint32_t length) {
  const uint32_t u = unitsPerBlock_;
  if (!haveBlock_ || phase < blockNext_ || phase + length > u) {
    // A new block, aligned so that unit offsets keep their phase.
    blockStart_ = (scratchEnd_ + u - 1) / u * u;
    haveBlock_ = true;
  }
  blockNext_ = phase + length;
  const uint32_t offset = blockStart_ + phase;
  scratchEnd_ = std::max(scratchEnd_, offset + length);
  return BufRef{BufferKind::Tmp, offset, length};
}

void ReductionSplitter::split(std::vector<Instruction> &ops) {
  // Receives first, each after the previous one, so that adjacent values get adjacent units;
  // then the results that are sent on, in a region of their own.
  // A plain receive into scratch moves to fresh units in the same sequence (renamed wherever
  // the rank uses them), so that it can join a split neighbour.
  std::vector<std::optional<BufRef>> received(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (isReceiveReduction(ops[i])) {
      const BufRef &value = ops[i].srcs.front();
      received[i] = allocate(value.offset % unitsPerBlock_, value.length);
    } else if (isRelocatableReceive(ops, i)) {
      const BufRef old = ops[i].dsts.front();
      const BufRef fresh = allocate(old.offset % unitsPerBlock_, old.length);
      for (Instruction &op : ops)
        for (auto *list : {&op.srcs, &op.dsts})
          std::replace(list->begin(), list->end(), old, fresh);
    }
  }
  haveBlock_ = false;
  std::vector<std::optional<BufRef>> results(ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    if (received[i] && ops[i].dsts.empty()) {
      const BufRef &value = ops[i].srcs.front();
      results[i] = allocate(value.offset % unitsPerBlock_, value.length);
    }

  std::vector<Instruction> out;
  out.reserve(ops.size() * 2);
  for (size_t i = 0; i < ops.size(); ++i) {
    Instruction &op = ops[i];
    if (!received[i]) {
      out.push_back(std::move(op));
      continue;
    }
    splits_.push_back(Split{*received[i], std::nullopt, op});
    Instruction recv;
    recv.kind = OpKind::Recv;
    recv.recv = op.recv;
    recv.recvId = op.recvId;
    recv.dsts = {*received[i]};
    recv.step = op.step;
    recv.channel = op.channel;
    Instruction reduce;
    reduce.kind = OpKind::Reduce;
    reduce.srcs = op.srcs;
    reduce.srcs.insert(reduce.srcs.begin() + long(std::min<size_t>(op.recvPos, op.srcs.size())),
                       *received[i]);
    reduce.dsts = op.dsts.empty() ? std::vector<BufRef>{*results[i]} : op.dsts;
    reduce.step = op.step;
    reduce.channel = op.channel;
    out.push_back(std::move(recv));
    out.push_back(reduce);
    if (!op.sends.empty()) {
      Instruction send;
      send.kind = OpKind::Send;
      send.srcs = {reduce.dsts.front()};
      send.sends = op.sends;
      send.sendIds = op.sendIds;
      send.step = op.step;
      send.channel = op.channel;
      splits_.back().sent = send.srcs.front();
      out.push_back(std::move(send));
    }
  }
  ops = std::move(out);
}

void ReductionSplitter::restore(std::vector<Instruction> &ops) const {
  auto reads = [](const Instruction &op, const BufRef &r) {
    return std::find(op.srcs.begin(), op.srcs.end(), r) != op.srcs.end();
  };
  for (const Split &s : splits_) {
    const size_t recv = find(ops, [&](const Instruction &op) {
      return op.recv && op.srcs.empty() && op.dsts.size() == 1 && op.dsts.front() == s.received;
    });
    if (recv == ops.size()) continue;  // merged with another message: the split stays
    const size_t reduce = find(ops, [&](const Instruction &op) {
      return !op.recv && reads(op, s.received);
    });
    if (s.sent) {
      const size_t send = find(ops, [&](const Instruction &op) {
        return !op.recv && op.dsts.empty() && op.srcs.size() == 1 && op.srcs.front() == *s.sent;
      });
      if (send == ops.size() || ops[send].sends != s.original.sends) continue;  // merged on
      ops[send] = Instruction{};
    }
    ops[recv] = Instruction{};
    ops[reduce] = s.original;
  }
}

}  // namespace collplan
