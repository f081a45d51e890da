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
};

/// Interprets plan ops; the same code serves every backend.
///
/// Transfer protocol (see Transport.h for the flag level). Sends never wait for receivers:
///  - a value that stays put after the op (it sits in a buffer range no later op of this rank
///    overwrites, PreparedProgram::publishInPlace) and that peers can address is published in
///    place: the receiver pulls it straight from the sender's buffer (zero copy);
///  - otherwise the value is written into this rank's staging area for the call (the reduction or
///    copy writes it there directly, alongside the op's dsts, in the same pass) and published
///    from there;
///  - receivers read the published data in place (reducing it with local operands in one pass)
///    and then release the slot;
///  - before a call returns, the rank waits until every slot it published was released, so its
///    buffers and staging may change as soon as the call returns; since every recv of a
///    deadlock-free plan completes, this drain always finishes.
/// In-place calls: an input that overlaps the output is used directly when the plan is
/// inplaceSafe and the offset is the canonical one (PreparedProgram::inPlaceBlockShift);
/// otherwise the input is first copied to a private staging buffer.
class Executor {
public:
  explicit Executor(Transport &transport) : transport_(transport) {}

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

  Transport &transport_;
  Memory tmp_, stagedInput_;
  size_t tmpCapacity_ = 0, stagedInputCapacity_ = 0;
  std::vector<const void *> operands_;
  std::vector<void *> targets_;
};

}  // namespace collplan
