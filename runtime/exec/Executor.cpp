// Executor::run: the progress loop over a rank's channels; operand gathering, fused folds,
// writes and sends of each op.
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

  // Decide how the input relates to the output.
  const std::byte *in = static_cast<const std::byte *>(call.in);
  std::byte *out = static_cast<std::byte *>(call.out);
  AliasMode mode = AliasMode::Separate;
  if (call.inBytes && call.outBytes && in < out + call.outBytes && out < in + call.inBytes) {
    const int64_t canonical =
        program.inPlaceBlockShift() * int64_t(call.count * dtypeSize(call.dtype));
    if (plan.inplaceSafe && in - out == canonical) {
      mode = AliasMode::InPlace;
    } else {
      std::byte *copy = reserve(stagedInput_, stagedInputCapacity_, call.inBytes);
      std::memcpy(copy, in, call.inBytes);
      in = copy;
    }
  }

  transport_.beginCall(call.signature);
  const std::array<size_t, 3> inPlaceMinBytes = {transport_.inPlaceMinBytes(in, call.inBytes),
                                                 transport_.inPlaceMinBytes(out, call.outBytes),
                                                 transport_.inPlaceMinBytes(nullptr, 0)};
  const PreparedProgram::Resolved &res =
      program.resolve(call.count, call.dtype, mode, inPlaceMinBytes);
  const Bases bases{{const_cast<std::byte *>(in), out, reserve(tmp_, tmpCapacity_, res.tmpBytes)},
                    transport_.staging(res.stagingBytes)};

  // The progress loop: each pass runs every channel as far as it can go.
  const uint32_t channels = program.channels();
  pc_.resize(channels);
  size_t unfinished = 0;
  for (uint32_t c = 0; c < channels; ++c) {
    pc_[c] = program.channelBegin(c);
    unfinished += pc_[c] < program.channelBegin(c + 1) ? 1 : 0;
  }
  Backoff backoff(transport_.waitPolicy());
  while (unfinished > 0) {
    bool moved = false;
    for (uint32_t c = 0; c < channels; ++c) {
      const size_t end = program.channelBegin(c + 1);
      if (pc_[c] == end) continue;
      while (pc_[c] < end && ready(program, pc_[c])) {
        pc_[c] = execute(program, res, call, bases, pc_[c]);
        moved = true;
      }
      if (pc_[c] == end) --unfinished;
    }
    if (moved)
      backoff.reset();
    else if (!backoff.pause())
      timedOut(program);
  }
  transport_.endCall();
}

bool Executor::ready(const PreparedProgram &program, size_t i) const {
  const std::vector<PreparedProgram::Op> &ops = program.ops();
  const PreparedProgram::Op &op = ops[i];
  for (uint32_t k = 0; k < op.numAfter; ++k) {
    const PreparedProgram::Wait &w = program.after()[op.afterBegin + k];
    if (pc_[w.channel] <= program.channelBegin(w.channel) + w.op) return false;
  }
  const size_t last = i + op.fusedOps - 1;
  for (size_t j = i; j <= last; ++j)
    if (ops[j].recv != PreparedProgram::kNoConnection && !transport_.arrived(ops[j].recv))
      return false;
  const PreparedProgram::Op &tail = ops[last];
  for (uint32_t k = 0; k < tail.numSends; ++k)
    if (!transport_.canPost(program.sends()[tail.sendBegin + k])) return false;
  return true;
}

size_t Executor::execute(const PreparedProgram &program, const PreparedProgram::Resolved &res,
                         const CallBuffers &call, const Bases &bases, size_t i) {
  const std::vector<PreparedProgram::Op> &ops = program.ops();
  const std::vector<BufRef> &refs = program.refs();
  auto at = [&](size_t ref) { return bases.at[int(refs[ref].buf)] + res.refOffset[ref]; };
  const PreparedProgram::Op &op = ops[i];
  const size_t last = i + op.fusedOps - 1;
  const PreparedProgram::Op &tail = ops[last];
  const size_t bytes = res.opBytes[i];

  // Operands: srcs with the received value at recvPos, then the messages of a fused chain.
  // A received value in another address space is a null operand, listed in remote_.
  operands_.clear();
  remote_.clear();
  auto receive = [&](Connection connection) {
    const std::byte *data = transport_.acquire(connection, bytes);
    if (!data) remote_.push_back({uint32_t(operands_.size()), connection});
    operands_.push_back(data);
  };
  for (uint32_t k = 0; k <= op.numSrcs; ++k) {
    if (op.recv != PreparedProgram::kNoConnection && k == op.recvPos) receive(op.recv);
    if (k < op.numSrcs) operands_.push_back(at(op.srcBegin + k));
  }
  for (size_t j = i + 1; j <= last; ++j) receive(ops[j].recv);

  // Targets: the dsts, plus this call's staging slot when the value must be copied to be sent.
  targets_.clear();
  for (uint32_t k = 0; k < tail.numDsts; ++k) targets_.push_back(at(tail.dstBegin + k));
  const size_t stagingOffset = res.stagingOffset[last];
  const bool stage = stagingOffset != PreparedProgram::kNotStaged;
  std::byte *staged = stage ? bases.staging + stagingOffset : nullptr;
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
                 operands_.size(), bytes / dtypeSize(call.dtype));
  }

  if (tail.numSends) {
    const std::byte *data = stage ? staged : at(size_t(tail.publishRef));
    for (uint32_t k = 0; k < tail.numSends; ++k)
      transport_.post(program.sends()[tail.sendBegin + k], data, bytes);
  }
  for (size_t j = i; j <= last; ++j)
    if (ops[j].recv != PreparedProgram::kNoConnection) transport_.release(ops[j].recv);
  return last + 1;
}

void Executor::timedOut(const PreparedProgram &program) const {
  const std::vector<PreparedProgram::Op> &ops = program.ops();
  std::string waits;
  for (uint32_t c = 0; c < program.channels(); ++c) {
    const size_t i = pc_[c];
    if (i == program.channelBegin(c + 1)) continue;
    const PreparedProgram::Op &op = ops[i];
    std::string what = "room to send";
    for (uint32_t k = 0; k < op.numAfter; ++k) {
      const PreparedProgram::Wait &w = program.after()[op.afterBegin + k];
      if (pc_[w.channel] <= program.channelBegin(w.channel) + w.op)
        what = "channels[" + std::to_string(w.channel) + "].ops[" + std::to_string(w.op) + "]";
    }
    for (size_t j = i; j < i + op.fusedOps && what == "room to send"; ++j)
      if (ops[j].recv != PreparedProgram::kNoConnection && !transport_.arrived(ops[j].recv))
        what = "a message from " + transport_.describe(ops[j].recv);
    if (what == "room to send" && op.numSends)
      what = "room to send to " + transport_.describe(program.sends()[op.sendBegin]);
    waits += (waits.empty() ? "" : "; ") + std::string("channels[") + std::to_string(c) +
             "].ops[" + std::to_string(i - program.channelBegin(c)) + "] waits for " + what;
  }
  const WaitPolicy &policy = transport_.waitPolicy();
  throw RuntimeError(ErrorCode::Timeout,
                     "rank " + std::to_string(program.rank()) + " made no progress for " +
                         std::to_string(policy.timeout.count() / 1000.0) + " s: " + waits +
                         ": a peer did not make the same collective call, failed or exited "
                         "(set COLLPLAN_TIMEOUT_S to change the limit)");
}

void Executor::reduceFetched(const CallBuffers &call, size_t bytes) {
  // One received value copied straight into its one target: a single copy, no bounce.
  if (operands_.size() == 1 && targets_.size() == 1) {
    transport_.fetch(remote_[0].connection, 0, bytes, static_cast<std::byte *>(targets_[0]));
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
      transport_.fetch(remote_[k].connection, offset, length, buffer);
      pieceOperands_[remote_[k].operand] = buffer;
    }
    pieceTargets_.clear();
    for (void *t : targets_) pieceTargets_.push_back(static_cast<std::byte *>(t) + offset);
    reduceInto(call.dtype, call.op, pieceTargets_.data(), pieceTargets_.size(),
               pieceOperands_.data(), pieceOperands_.size(), length / elementSize);
  }
}

}  // namespace collplan
