// What one block of a cuda launch does: run its channel's ops (wait, fold its slice, post,
// consume), written once for the kernel and for the host-side emulation that tests it.
#pragma once

#include "runtime/backends/cuda/DeviceProgram.h"

namespace collplan::cuda {

/// What the block's leader resolved for the op in hand, shared by the block's threads.
struct BlockShared {
  const char *operands[kMaxOpPointers];
  char *targets[kMaxOpPointers];
  uint32_t stop;  ///< the leader gave up (timeout, bad message, another block's failure)
};

/// A Ctx gives the runner its execution: thread() / threads() of the block, sync() (a block
/// barrier), shared() (a BlockShared every thread of the block sees), the leader's atomics
/// (loadAcquire, storeRelease, fetchAddAcqRel on 64-bit words; the same with 32 on 32-bit
/// ones; loadRelaxed / storeRelaxed, strong but unordered; claimError: compare-and-swap from 0),
/// fenceAcqRel() (with relaxed accesses, the acquire and release patterns of the memory model:
/// relaxed polls then one fence acquire what they saw; one fence then relaxed stores release
/// what came before), fenceDevice() (the block's writes visible to every reader of the
/// launch's counters), publishError() (the error record visible to the host), nowNs() and
/// pause() between polls.
///
/// Each acquire or release is a fence on the GPU (and an invalidation of the multiprocessor's
/// L1), so an op polls and stores its counters relaxed and fences once on each side: a
/// channel's op costs two fences whatever its number of waits, messages and sends.

namespace detail {

/// The slice [begin, end) of `count` items that part `part` of `parts` takes.
COLLPLAN_HD inline void sliceOf(uint64_t count, uint32_t part, uint32_t parts, uint64_t &begin,
                                uint64_t &end) {
  begin = count * part / parts;
  end = count * (part + 1) / parts;
}

/// 16 bytes of elements of storage type S.
template <typename S>
struct Vec16 {
  static constexpr int kLanes = 16 / sizeof(S);
  S lane[kLanes];
};

template <typename S>
COLLPLAN_HD inline Vec16<S> loadVec(const char *p) {
#ifdef __CUDA_ARCH__
  const uint4 raw = *reinterpret_cast<const uint4 *>(p);
  Vec16<S> v;
  memcpy(&v, &raw, 16);
  return v;
#else
  Vec16<S> v;
  std::memcpy(&v, p, 16);
  return v;
#endif
}
template <typename S>
COLLPLAN_HD inline void storeVec(char *p, const Vec16<S> &v) {
#ifdef __CUDA_ARCH__
  uint4 raw;
  memcpy(&raw, &v, 16);
  *reinterpret_cast<uint4 *>(p) = raw;
#else
  std::memcpy(p, &v, 16);
#endif
}

/// targets[t][i] = fold(operands[0][i], ..., operands[n-1][i]) for the elements of this part:
/// 16-byte vectors where every pointer allows them, elements otherwise. The fold is the CPU
/// executor's (reduce_ops), so every backend computes the same bits.
template <typename Tr, typename Op, typename Ctx>
COLLPLAN_HD void foldSlice(Ctx &ctx, const BlockShared &s, uint32_t numOperands,
                           uint32_t numTargets, uint64_t bytes, uint32_t part, uint32_t parts) {
  using S = typename Tr::Storage;
  using C = typename Tr::Compute;
  uint64_t misaligned = bytes;
  for (uint32_t k = 0; k < numOperands; ++k) misaligned |= uint64_t(uintptr_t(s.operands[k]));
  for (uint32_t t = 0; t < numTargets; ++t) misaligned |= uint64_t(uintptr_t(s.targets[t]));
  const bool vectors = (misaligned & 15) == 0;
  const uint64_t step = vectors ? 16 : sizeof(S);
  uint64_t begin, end;
  sliceOf(bytes / step, part, parts, begin, end);
  for (uint64_t i = begin + ctx.thread(); i < end; i += ctx.threads()) {
    const uint64_t at = i * step;
    if (vectors) {
      Vec16<S> x = loadVec<S>(s.operands[0] + at);
      if (numOperands > 1) {
        C acc[Vec16<S>::kLanes];
        for (int l = 0; l < Vec16<S>::kLanes; ++l) acc[l] = Tr::load(x.lane[l]);
        for (uint32_t k = 1; k < numOperands; ++k) {
          const Vec16<S> y = loadVec<S>(s.operands[k] + at);
          for (int l = 0; l < Vec16<S>::kLanes; ++l)
            acc[l] = Tr::round(Op::apply(acc[l], Tr::load(y.lane[l])));
        }
        for (int l = 0; l < Vec16<S>::kLanes; ++l) x.lane[l] = Tr::store(acc[l]);
      }
      for (uint32_t t = 0; t < numTargets; ++t) storeVec<S>(s.targets[t] + at, x);
    } else {
      S x = *reinterpret_cast<const S *>(s.operands[0] + at);
      if (numOperands > 1) {
        C acc = Tr::load(x);
        for (uint32_t k = 1; k < numOperands; ++k)
          acc = Tr::round(Op::apply(acc, Tr::load(*reinterpret_cast<const S *>(s.operands[k] + at))));
        x = Tr::store(acc);
      }
      for (uint32_t t = 0; t < numTargets; ++t) *reinterpret_cast<S *>(s.targets[t] + at) = x;
    }
  }
}

template <typename Tr, typename Ctx>
COLLPLAN_HD void foldSliceOp(Ctx &ctx, const BlockShared &s, uint32_t op, uint32_t numOperands,
                             uint32_t numTargets, uint64_t bytes, uint32_t part, uint32_t parts) {
  using namespace reduce_ops;
  switch (ReduceOp(op)) {
  case ReduceOp::Sum: return foldSlice<Tr, Sum>(ctx, s, numOperands, numTargets, bytes, part, parts);
  case ReduceOp::Prod: return foldSlice<Tr, Prod>(ctx, s, numOperands, numTargets, bytes, part, parts);
  case ReduceOp::Min: return foldSlice<Tr, Min>(ctx, s, numOperands, numTargets, bytes, part, parts);
  case ReduceOp::Max: return foldSlice<Tr, Max>(ctx, s, numOperands, numTargets, bytes, part, parts);
  }
}

/// Copies (one operand) move bytes whatever the dtype; folds dispatch on the call's dtype.
template <typename Ctx>
COLLPLAN_HD void foldPart(Ctx &ctx, const LaunchArgs &a, const BlockShared &s,
                          uint32_t numOperands, uint32_t numTargets, uint64_t bytes,
                          uint32_t part) {
  using namespace reduce_ops;
  const uint32_t parts = a.blocksPerChannel;
  if (numOperands == 1)
    return foldSlice<Plain<uint8_t>, Sum>(ctx, s, 1, numTargets, bytes, part, parts);
  switch (DType(a.dtype)) {
  case DType::F32: return foldSliceOp<Plain<float>>(ctx, s, a.op, numOperands, numTargets, bytes, part, parts);
  case DType::F64: return foldSliceOp<Plain<double>>(ctx, s, a.op, numOperands, numTargets, bytes, part, parts);
  case DType::F16: return foldSliceOp<Half>(ctx, s, a.op, numOperands, numTargets, bytes, part, parts);
  case DType::BF16: return foldSliceOp<BFloat>(ctx, s, a.op, numOperands, numTargets, bytes, part, parts);
  case DType::I32: return foldSliceOp<Plain<int32_t>>(ctx, s, a.op, numOperands, numTargets, bytes, part, parts);
  case DType::I64: return foldSliceOp<Plain<int64_t>>(ctx, s, a.op, numOperands, numTargets, bytes, part, parts);
  case DType::U8: return foldSliceOp<Plain<uint8_t>>(ctx, s, a.op, numOperands, numTargets, bytes, part, parts);
  }
}

/// Records the block's failure (the first one wins) and tells every block to stop.
template <typename Ctx>
COLLPLAN_HD void fail(Ctx &ctx, const LaunchArgs &a, const DeviceChannel &ch, uint32_t op,
                      DeviceFailure failure, uint32_t waitingFor, uint32_t connection,
                      uint64_t bytes) {
  if (ctx.claimError(&a.error->failure, uint32_t(failure))) {
    a.error->rank = a.planRank[ch.rank];
    a.error->channel = ch.planChannel;
    a.error->op = op;
    a.error->waitingFor = waitingFor;
    a.error->connection = connection;
    a.error->bytes = bytes;
    ctx.publishError();
  }
  ctx.storeRelease32(a.abort, 1);
}

/// Polls `ready` until it holds; false when the launch was aborted or the timeout passed (then
/// the failure is recorded).
template <typename Ctx, typename Ready>
COLLPLAN_HD bool waitUntil(Ctx &ctx, const LaunchArgs &a, const DeviceChannel &ch, uint32_t op,
                           uint32_t waitingFor, uint32_t connection, uint64_t &startNs,
                           Ready &&ready) {
  for (uint32_t polls = 0; !ready(); ++polls) {
    if ((polls & 255) == 255) {
      if (ctx.loadAcquire32(a.abort)) return false;
      const uint64_t now = ctx.nowNs();
      if (startNs == 0) startNs = now;
      if (now - startNs > a.timeoutNs) {
        fail(ctx, a, ch, op, DeviceFailure::Timeout, waitingFor, connection, 0);
        return false;
      }
    }
    ctx.pause();
  }
  return true;
}

/// The leader's part before the data moves: every wait of op `j` of channel `ch` (relaxed
/// polls, then one acquire fence for all of them), then the operand and target addresses into
/// shared memory. A FIFO's `consumed` (receiving) and `posted` (sending) are the channel's own:
/// read relaxed, they are ordered by program order or by the channel's opsDone. False when the
/// block must stop.
template <typename Ctx>
COLLPLAN_HD bool prepareOp(Ctx &ctx, const LaunchArgs &a, const DeviceChannel &ch, uint32_t j,
                           const DeviceOp &op) {
  BlockShared &s = ctx.shared();
  uint64_t startNs = 0;
  for (uint32_t k = 0; k < op.numWaits; ++k) {
    const DeviceWait &w = a.waits[op.waitBegin + k];
    if (!waitUntil(ctx, a, ch, j, 0, a.channels[w.channel].planChannel, startNs,
                   [&] { return ctx.loadRelaxed(&a.counters[w.channel].opsDone) >= w.ops; }))
      return false;
  }
  for (uint32_t k = 0; k < op.numRecvs; ++k) {
    const uint32_t c = a.connectionIds[op.recvBegin + k];
    DeviceFifo *f = a.connections[c].fifo;
    const uint64_t consumed = ctx.loadRelaxed(&f->consumed);
    if (!waitUntil(ctx, a, ch, j, 1, c, startNs,
                   [&] { return ctx.loadRelaxed(&f->posted) > consumed; }))
      return false;
  }
  for (uint32_t k = 0; k < op.numSends; ++k) {
    const uint32_t c = a.connectionIds[op.sendBegin + k];
    DeviceFifo *f = a.connections[c].fifo;
    const uint64_t posted = ctx.loadRelaxed(&f->posted);
    if (!waitUntil(ctx, a, ch, j, 2, c, startNs, [&] {
          return posted - ctx.loadRelaxed(&f->consumed) < kChannelDepth;
        }))
      return false;
  }
  // Acquires the peers' data, slots and room that the polls saw.
  if (op.numWaits + op.numRecvs + op.numSends) ctx.fenceAcqRel();
  char *const *base = a.bases[ch.rank];
  for (uint32_t k = 0; k < op.numOperands; ++k) {
    const DeviceRef &r = a.refs[op.operandBegin + k];
    if (r.space != Space::Message) {
      s.operands[k] = base[uint32_t(r.space)] + r.offset;
      continue;
    }
    const ConnectionView &view = a.connections[r.connection];
    const DeviceSlot &slot = view.fifo->slots[ctx.loadRelaxed(&view.fifo->consumed) % kChannelDepth];
    if (slot.bytes != op.bytes) {
      fail(ctx, a, ch, j, DeviceFailure::SizeMismatch, 1, r.connection, slot.bytes);
      return false;
    }
    s.operands[k] = reinterpret_cast<const char *>(uintptr_t(slot.where + view.receiverOrigin));
  }
  for (uint32_t t = 0; t < op.numTargets; ++t) {
    const DeviceRef &r = a.refs[op.targetBegin + t];
    s.targets[t] = base[uint32_t(r.space)] + r.offset;
  }
  return true;
}

/// The last block to finish its part of op `j`: fill the slots of its sends, then one release
/// fence (the data every block wrote and the slots are visible to whoever sees the counters),
/// then post, consume and mark the op done with relaxed stores (opsDone released where the
/// channel has several blocks).
template <typename Ctx>
COLLPLAN_HD void completeOp(Ctx &ctx, const LaunchArgs &a, const DeviceChannel &ch,
                            uint32_t channel, uint32_t j, const DeviceOp &op) {
  const DeviceRef *p = op.publish == UINT32_MAX ? nullptr : &a.refs[op.publish];
  const uint64_t address =
      p ? uint64_t(uintptr_t(a.bases[ch.rank][uint32_t(p->space)] + p->offset)) : 0;
  for (uint32_t k = 0; k < op.numSends; ++k) {
    const ConnectionView &view = a.connections[a.connectionIds[op.sendBegin + k]];
    DeviceSlot &slot = view.fifo->slots[ctx.loadRelaxed(&view.fifo->posted) % kChannelDepth];
    slot.where = address ? address - view.senderOrigin : 0;
    slot.bytes = op.bytes;
  }
  ctx.fenceAcqRel();
  for (uint32_t k = 0; k < op.numSends; ++k) {
    DeviceFifo *f = a.connections[a.connectionIds[op.sendBegin + k]].fifo;
    ctx.storeRelaxed(&f->posted, ctx.loadRelaxed(&f->posted) + 1);
  }
  for (uint32_t k = 0; k < op.numRecvs; ++k) {
    DeviceFifo *f = a.connections[a.connectionIds[op.recvBegin + k]].fifo;
    ctx.storeRelaxed(&f->consumed, ctx.loadRelaxed(&f->consumed) + 1);
  }
  // The other blocks of a channel read posted and consumed in their next op after they see
  // opsDone, so there its store releases those stores too (the fence above orders only what
  // came before it). A channel of one block reads them in program order.
  if (a.blocksPerChannel > 1)
    ctx.storeRelease(&a.counters[channel].opsDone, uint64_t(j) + 1);
  else
    ctx.storeRelaxed(&a.counters[channel].opsDone, uint64_t(j) + 1);
}

}  // namespace detail

/// Block `block` of the launch: part `block % blocksPerChannel` of channel
/// `block / blocksPerChannel`. Each op: the leader waits and resolves addresses, every block of
/// the channel folds its slice, and the last of them to arrive posts and consumes; the others
/// wait for that before the next op (its messages and room depend on it).
template <typename Ctx>
COLLPLAN_HD void runChannelBlock(Ctx &ctx, const LaunchArgs &a, uint32_t block) {
  const uint32_t parts = a.blocksPerChannel;
  const uint32_t channel = block / parts, part = block % parts;
  const DeviceChannel &ch = a.channels[channel];
  BlockShared &s = ctx.shared();
  const bool leader = ctx.thread() == 0;
  for (uint32_t i = ch.opBegin; i < ch.opEnd; ++i) {
    const uint32_t j = i - ch.opBegin;
    const DeviceOp &op = a.ops[i];
    if (leader) s.stop = detail::prepareOp(ctx, a, ch, j, op) ? 0 : 1;
    ctx.sync();
    if (s.stop) return;
    if (op.bytes && op.numOperands && op.numTargets)
      detail::foldPart(ctx, a, s, op.numOperands, op.numTargets, op.bytes, part);
    ctx.sync();
    if (leader && parts == 1) {
      // The block is the channel: the barrier orders its threads' writes before the leader's
      // release fence in completeOp, so no other fence or arrival count is needed.
      detail::completeOp(ctx, a, ch, channel, j, op);
    } else if (leader) {
      ctx.fenceDevice();
      const uint64_t arrived = ctx.fetchAddAcqRel(&a.counters[channel].arrivals, 1) + 1;
      uint64_t startNs = 0;
      if (arrived == uint64_t(j + 1) * parts)
        detail::completeOp(ctx, a, ch, channel, j, op);
      else if (!detail::waitUntil(ctx, a, ch, j, 0, ch.planChannel, startNs, [&] {
                 return ctx.loadAcquire(&a.counters[channel].opsDone) > j;
               }))
        s.stop = 1;
    }
    ctx.sync();
    if (s.stop) return;
  }
  if (leader && part == 0) {
    uint64_t startNs = 0;
    for (uint32_t k = 0; k < ch.numDrains; ++k) {
      const uint32_t c = a.connectionIds[ch.drainBegin + k];
      DeviceFifo *f = a.connections[c].fifo;
      if (!detail::waitUntil(ctx, a, ch, ch.opEnd - ch.opBegin, 2, c, startNs, [&] {
            return ctx.loadAcquire(&f->consumed) == ctx.loadAcquire(&f->posted);
          }))
        return;
    }
  }
}

/// After every block of the launch ran runChannelBlock: the last one to get here zeroes the
/// launch's counters for the next call on the same stream.
template <typename Ctx>
COLLPLAN_HD void finishBlock(Ctx &ctx, const LaunchArgs &a, uint32_t gridBlocks) {
  if (ctx.thread() != 0) return;
  if (ctx.fetchAddAcqRel32(a.finishedBlocks, 1) + 1 != gridBlocks) return;
  for (uint32_t c = 0; c < a.numChannels; ++c) {
    ctx.storeRelease(&a.counters[c].opsDone, 0);
    ctx.storeRelease(&a.counters[c].arrivals, 0);
  }
  ctx.storeRelease32(a.finishedBlocks, 0);
}

}  // namespace collplan::cuda
