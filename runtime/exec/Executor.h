// Executor: runs one rank's prepared program for one call over any Transport.
#pragma once

#include "runtime/exec/PreparedProgram.h"
#include "runtime/exec/Transport.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace collplan {

/// The buffers and shape of one collective call on one rank (already validated by the caller).
struct CallBuffers {
  const void *in = nullptr;
  void *out = nullptr;
  size_t inBytes = 0;   ///< bytes the input holds for this rank (inputBlocks * count * size)
  size_t outBytes = 0;  ///< bytes the output holds for this rank
  size_t count = 0;
  DType dtype = DType::F32;
  ReduceOp op = ReduceOp::Sum;  ///< used when the plan reduces
  /// What every rank's call must match (checked on every message received).
  CallSignature signature;
};

/// COLLPLAN_STREAMING_COPY_MIN (bytes), else kDefaultStreamingCopyMinBytes. Throws RuntimeError
/// naming the variable when it is malformed.
size_t streamingCopyMinBytesFromEnv();

/// Interprets plan ops; the same code serves every backend.
///
/// A progress loop runs the rank's channels: it takes each channel's next op when the op is
/// ready (its `after` ops done, its message arrived, room on the connections it sends on) and
/// otherwise moves on to the next channel, so no channel blocks another; when no channel can
/// move it backs off (Transport::waitPolicy) and, past the timeout, reports what each channel
/// waits for.
///
/// Transfer protocol (see Transport.h). Sends wait only for room on their connection:
///  - a value that stays put after the op (it sits in a buffer range no op that may run later
///    overwrites, PreparedProgram::publishInPlace) and that peers can address is posted in
///    place: the receiver pulls it straight from the sender's buffer (zero copy);
///  - otherwise the value is written into this rank's staging area for the call (the reduction or
///    copy writes it there directly, alongside the op's dsts, in the same pass) and posted
///    from there;
///  - receivers read the published data in place (reducing it with local operands in one pass)
///    and then release the slot; where the sender's memory is in another address space (cpu-shm
///    single-copy transfers), the receiver copies it out with Transport::fetch, straight into
///    the destination for a plain copy, else piece by piece through a cache-sized bounce buffer
///    reduced while still in cache;
///  - before a call returns, the rank waits until every message it posted was consumed, so its
///    buffers and staging may change as soon as the call returns; since every recv of a
///    deadlock-free plan completes, this drain always finishes.
/// In-place calls: an input that overlaps the output is used directly when the plan is
/// inplaceSafe and the offset is the canonical one (PreparedProgram::inPlaceBlockShift);
/// otherwise the input is first copied to a private staging buffer.
class Executor {
public:
  /// Plain copies of at least `streamingCopyMinBytes` bytes use streaming stores
  /// (StreamingCopy.h); pass streamingCopyMinBytesFromEnv() to honour the user's setting.
  Executor(Transport &transport, size_t streamingCopyMinBytes)
      : transport_(transport), streamingCopyMinBytes_(streamingCopyMinBytes) {}

  /// Runs `program` for one call. Throws RuntimeError on a size mismatch with a peer or timeout.
  void run(const PreparedProgram &program, const CallBuffers &call);

  Transport &transport() { return transport_; }

private:
  struct AlignedFree {
    void operator()(std::byte *p) const;
  };
  using Memory = std::unique_ptr<std::byte[], AlignedFree>;
  /// Grows `memory` (private to this rank; tmp and staged input) to at least `bytes`.
  static std::byte *reserve(Memory &memory, size_t &capacity, size_t bytes);

  /// Bytes of each remote operand copied in per step of reduceFetched: small enough that the
  /// bounce buffers, the local operands' pieces and the targets' pieces stay in L2.
  static constexpr size_t kFetchPieceBytes = size_t(64) << 10;
  /// A received operand that must be copied out of another address space.
  struct RemoteOperand {
    uint32_t operand;  ///< index into operands_
    Connection connection;
  };
  /// The buffers of the call being run, by BufferKind.
  struct Bases {
    std::byte *at[3];
    std::byte *staging;
  };
  /// Whether op `i` (with its fused chain) can run now.
  bool ready(const PreparedProgram &program, size_t i) const;
  /// Runs op `i` and its fused chain; returns the index of the op after them.
  size_t execute(const PreparedProgram &program, const PreparedProgram::Resolved &res,
                 const CallBuffers &call, const Bases &bases, size_t i);
  /// Computes targets_ from operands_ when some operands are remote (see remote_).
  void reduceFetched(const CallBuffers &call, size_t bytes);
  /// What each unfinished channel waits for, after the timeout.
  [[noreturn]] void timedOut(const PreparedProgram &program) const;

  Transport &transport_;
  size_t streamingCopyMinBytes_;
  Memory tmp_, stagedInput_, bounce_;
  size_t tmpCapacity_ = 0, stagedInputCapacity_ = 0, bounceCapacity_ = 0;
  std::vector<const void *> operands_, pieceOperands_;
  std::vector<void *> targets_, pieceTargets_;
  std::vector<RemoteOperand> remote_;
  std::vector<size_t> pc_;  ///< per channel: the index (into ops()) of its next op
};

}  // namespace collplan
