// PreparedProgram: one rank's program of one plan, analysed once for the executor.
#pragma once

#include "runtime/exec/Transport.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/UnitLayout.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace collplan {

/// How a call's input buffer relates to its output buffer.
enum class AliasMode : uint8_t {
  Separate = 0,  ///< out-of-place, or in-place with the input staged into a private copy
  InPlace = 1,   ///< in-place at the canonical offset on a plan marked inplaceSafe
};

/// The analysis of `plan.programs[rank]` that does not depend on the call's count:
///  - every send gets a dense slot number; every recv names its sender's slot;
///  - chains of recv_reduce ops that accumulate into one buffer range (op i writes D, op i+1 reads
///    only D and a received value and writes D, ...) are marked for one fused n-ary pass: the same
///    left fold, each operand read once, D written once;
///  - for each op that sends, whether its value may be published in place (the receiver pulls
///    from this rank's buffer): the transport allows it for that buffer and no later op of this
///    rank writes any unit aliasing that range (computed for out-of-place and in-place calls).
/// Throws RuntimeError(Plan) for a plan this rank cannot run (unmatched transfer, out-of-range
/// unit, more sends than the transport's slots). The plan must outlive the PreparedProgram.
class PreparedProgram {
public:
  PreparedProgram(const Plan &plan, int rank, const Transport &transport);

  const Plan &plan() const { return *plan_; }
  int rank() const { return rank_; }
  /// Blocks by which an in-place input is offset from the output (NCCL/MPI conventions):
  /// allgather input = out + rank*count, reduce_scatter output = in + rank*count, gather (root)
  /// input = out + root*count, scatter (root) output = in + root*count, otherwise 0.
  int64_t inPlaceBlockShift() const { return blockShift_; }

  struct Op {
    uint32_t srcBegin = 0, numSrcs = 0;   ///< into refs()
    uint32_t dstBegin = 0, numDsts = 0;   ///< into refs()
    uint32_t sendBegin = 0, numSends = 0; ///< into sends()
    uint32_t recvPos = 0;
    int32_t recvPeer = -1;  ///< -1: the op receives nothing
    uint32_t recvSlot = 0;  ///< the sender's slot of the matching send
    /// refs() index of a range holding the value after the op (first dst, or the only src), -1
    /// when the value lives nowhere in this rank's buffers.
    int32_t publishRef = -1;
    bool publishInPlace[2] = {false, false};  ///< indexed by AliasMode
    uint32_t fusedOps = 1;  ///< on a chain's first op: ops [i, i + fusedOps) run as one pass
  };
  struct Send {
    int32_t peer = 0;
    uint32_t slot = 0;
  };

  /// Byte positions of every reference for one (count, dtype, mode, in-place threshold); cached
  /// for the last call.
  struct Resolved {
    size_t count = 0;
    DType dtype = DType::F32;
    AliasMode mode = AliasMode::Separate;
    std::array<size_t, 3> inPlaceMinBytes{};  ///< by BufferKind
    bool valid = false;
    std::vector<size_t> refOffset;      ///< byte offset of each ref in its buffer
    std::vector<size_t> opBytes;        ///< bytes of each op's value
    /// Per op that stages its send, else kNotStaged. An op stages when its value cannot be
    /// published in place, or is smaller than the transport's inPlaceMinBytes for its buffer.
    std::vector<size_t> stagingOffset;
    size_t stagingBytes = 0;
    size_t tmpBytes = 0;
  };

  const std::vector<Op> &ops() const { return ops_; }
  const std::vector<BufRef> &refs() const { return refs_; }
  const std::vector<Send> &sends() const { return sends_; }
  static constexpr size_t kNotStaged = SIZE_MAX;
  /// Resolves units to bytes for this call (reusing the previous result when unchanged).
  /// `inPlaceMinBytes`: Transport::inPlaceMinBytes of this call's in, out and tmp buffers.
  const Resolved &resolve(size_t count, DType dtype, AliasMode mode,
                          const std::array<size_t, 3> &inPlaceMinBytes = {}) const;

private:
  void analyseTransfers(const Transport &transport);
  void analyseFusion();
  void analysePublishing(const Transport &transport);
  bool writtenAfter(size_t opIndex, const BufRef &range, AliasMode mode) const;

  const Plan *plan_;
  int rank_;
  int64_t blockShift_ = 0;
  uint32_t unitsPerBlock_ = 0;
  std::vector<Op> ops_;
  std::vector<BufRef> refs_;
  std::vector<Send> sends_;
  mutable Resolved resolved_;
};

}  // namespace collplan
