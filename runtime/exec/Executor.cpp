// Executor::run: operand gathering, fused folds, writes and sends of a rank's program.
#include "runtime/exec/Executor.h"

#include "runtime/core/Reduce.h"
#include "runtime/core/StreamingCopy.h"
#include "runtime/exec/EnvSettings.h"
#include "runtime/exec/RuntimeError.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string>

namespace collplan {

size_t streamingCopyMinBytesFromEnv() {
  return size_t(unsignedFromEnv("COLLPLAN_STREAMING_COPY_MIN", kDefaultStreamingCopyMinBytes,
                                "a number of bytes"));
}

void Executor::AlignedFree::operator()(std::byte *p) const { std::free(p); }

std::byte *Executor::reserve(Memory &memory, size_t &capacity, size_t bytes) {
  if (bytes <= capacity) return memory.get();
  const size_t rounded = (bytes + 4095) & ~size_t(4095);
  void *p = std::aligned_alloc(4096, rounded);
  if (!p)
    throw RuntimeError(ErrorCode::System,
                       "out of memory allocating " + std::to_string(rounded) + " bytes of scratch");
  memory.reset(static_cast<std::byte *>(p));
  capacity = rounded;
  return memory.get();
}

void Executor::run(const PreparedProgram &program, const CallBuffers &call) {
  const Plan &plan = program.plan();
  const size_t elementSize = dtypeSize(call.dtype);

  // Decide how the input relates to the output.
  const std::byte *in = static_cast<const std::byte *>(call.in);
  std::byte *out = static_cast<std::byte *>(call.out);
  AliasMode mode = AliasMode::Separate;
  if (call.inBytes && call.outBytes && in < out + call.outBytes && out < in + call.inBytes) {
    const int64_t canonical = program.inPlaceBlockShift() * int64_t(call.count * elementSize);
    if (plan.inplaceSafe && in - out == canonical) {
      mode = AliasMode::InPlace;
    } else {
      std::byte *copy = reserve(stagedInput_, stagedInputCapacity_, call.inBytes);
      std::memcpy(copy, in, call.inBytes);
      in = copy;
    }
  }

  transport_.beginCall();
  const std::array<size_t, 3> inPlaceMinBytes = {transport_.inPlaceMinBytes(in, call.inBytes),
                                                 transport_.inPlaceMinBytes(out, call.outBytes),
                                                 transport_.inPlaceMinBytes(nullptr, 0)};
  const PreparedProgram::Resolved &res =
      program.resolve(call.count, call.dtype, mode, inPlaceMinBytes);
  std::byte *bases[3] = {const_cast<std::byte *>(in), out,
                         reserve(tmp_, tmpCapacity_, res.tmpBytes)};
  const std::vector<PreparedProgram::Op> &ops = program.ops();
  const std::vector<BufRef> &refs = program.refs();
  const std::vector<PreparedProgram::Send> &sends = program.sends();
  auto at = [&](size_t ref) { return bases[int(refs[ref].buf)] + res.refOffset[ref]; };

  std::byte *staging = transport_.staging(res.stagingBytes);
  for (size_t i = 0; i < ops.size();) {
    const PreparedProgram::Op &op = ops[i];
    const size_t last = i + op.fusedOps - 1;
    const PreparedProgram::Op &tail = ops[last];
    const size_t bytes = res.opBytes[i];

    // Operands: srcs with the received value at recvPos, then the receives of a fused chain.
    // A received value in another address space is a null operand, listed in remote_.
    operands_.clear();
    remote_.clear();
    auto receive = [&](int32_t peer, uint32_t slot) {
      const std::byte *data = transport_.acquire(peer, slot, bytes);
      if (!data) remote_.push_back({uint32_t(operands_.size()), peer, slot});
      operands_.push_back(data);
    };
    for (uint32_t k = 0; k <= op.numSrcs; ++k) {
      if (op.recvPeer >= 0 && k == op.recvPos) receive(op.recvPeer, op.recvSlot);
      if (k < op.numSrcs) operands_.push_back(at(op.srcBegin + k));
    }
    for (size_t j = i + 1; j <= last; ++j) receive(ops[j].recvPeer, ops[j].recvSlot);

    // Targets: the dsts, plus this call's staging slot when the value must be copied to be sent.
    targets_.clear();
    for (uint32_t k = 0; k < tail.numDsts; ++k) targets_.push_back(at(tail.dstBegin + k));
    const size_t stagingOffset = res.stagingOffset[last];
    const bool stage = stagingOffset != PreparedProgram::kNotStaged;
    std::byte *staged = stage ? staging + stagingOffset : nullptr;
    if (stage && bytes) targets_.push_back(staged);
    if (!targets_.empty() && !operands_.empty() && bytes) {
      if (!remote_.empty())
        reduceFetched(call, bytes);
      else if (operands_.size() == 1 && bytes >= streamingCopyMinBytes_)
        for (void *target : targets_) {
          if (target != operands_[0]) streamingCopy(target, operands_[0], bytes);
        }
      else
        reduceInto(call.dtype, call.op, targets_.data(), targets_.size(), operands_.data(),
                   operands_.size(), bytes / elementSize);
    }

    if (tail.numSends) {
      const std::byte *data = stage ? staged : at(size_t(tail.publishRef));
      for (uint32_t k = 0; k < tail.numSends; ++k) {
        const PreparedProgram::Send &s = sends[tail.sendBegin + k];
        transport_.publish(s.peer, s.slot, data, bytes);
      }
    }
    if (op.recvPeer >= 0) transport_.release(op.recvPeer, op.recvSlot);
    for (size_t j = i + 1; j <= last; ++j) transport_.release(ops[j].recvPeer, ops[j].recvSlot);
    i = last + 1;
  }
  transport_.endCall();
}

void Executor::reduceFetched(const CallBuffers &call, size_t bytes) {
  // One received value copied straight into its one target: a single copy, no bounce.
  if (operands_.size() == 1 && targets_.size() == 1) {
    transport_.fetch(remote_[0].peer, remote_[0].slot, 0, bytes,
                     static_cast<std::byte *>(targets_[0]));
    return;
  }
  // Otherwise piece by piece through a cache-resident bounce buffer per remote operand, so the
  // copied-in data is reduced while it is still in cache (DRAM sees one read of the peer's data).
  const size_t elementSize = dtypeSize(call.dtype);
  const size_t piece = kFetchPieceBytes / elementSize * elementSize;
  std::byte *bounce = reserve(bounce_, bounceCapacity_, remote_.size() * piece);
  for (size_t offset = 0; offset < bytes; offset += piece) {
    const size_t length = std::min(piece, bytes - offset);
    pieceOperands_.clear();
    for (const void *p : operands_)
      pieceOperands_.push_back(p ? static_cast<const std::byte *>(p) + offset : nullptr);
    for (size_t k = 0; k < remote_.size(); ++k) {
      std::byte *buffer = bounce + k * piece;
      transport_.fetch(remote_[k].peer, remote_[k].slot, offset, length, buffer);
      pieceOperands_[remote_[k].operand] = buffer;
    }
    pieceTargets_.clear();
    for (void *t : targets_) pieceTargets_.push_back(static_cast<std::byte *>(t) + offset);
    reduceInto(call.dtype, call.op, pieceTargets_.data(), pieceTargets_.size(),
               pieceOperands_.data(), pieceOperands_.size(), length / elementSize);
  }
}

}  // namespace collplan
