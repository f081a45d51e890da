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

class ProgramOrder;

/// How a call's input buffer relates to its output buffer.
enum class AliasMode : uint8_t {
  Separate = 0,  ///< out-of-place, or in-place with the input staged into a private copy
  InPlace = 1,   ///< in-place at the canonical offset on a plan marked inplaceSafe
};

/// The analysis of `plan.programs[rank]` that does not depend on the call's count:
///  - its channels' ops in one array, channel after channel, each op naming the transport
///    connections of its recv and sends and the ops of other channels it waits for;
///  - chains of recv_reduce ops of one channel that accumulate into one buffer range (op i
///    writes D, op i+1 reads only D and a message from another peer and writes D, ...) are
///    marked for one fused n-ary pass: the same left fold, each operand read once, D written
///    once (fusedChainLengths, which the deadlock check models too);
///  - for each op that sends, whether its value may be posted in place (the receiver reads this
///    rank's buffer): the transport allows it for that buffer and no op of this rank that may
///    run later (one not ordered before it by its channel or `after`) writes any unit aliasing
///    that range, for out-of-place and for in-place calls.
/// Throws RuntimeError(Plan) for a plan this rank cannot run (out-of-range unit, a partial plan
/// of another rank, more connections than the transport holds). The plan must outlive the
/// PreparedProgram.
class PreparedProgram {
public:
  PreparedProgram(const Plan &plan, int rank, ConnectionSource &connections);

  const Plan &plan() const { return *plan_; }
  int rank() const { return rank_; }
  /// Blocks by which an in-place input is offset from the output (NCCL/MPI conventions):
  /// allgather input = out + rank*count, reduce_scatter output = in + rank*count, gather (root)
  /// input = out + root*count, scatter (root) output = in + root*count, otherwise 0.
  int64_t inPlaceBlockShift() const { return blockShift_; }

  static constexpr Connection kNoConnection = UINT32_MAX;
  struct Op {
    uint32_t srcBegin = 0, numSrcs = 0;   ///< into refs()
    uint32_t dstBegin = 0, numDsts = 0;   ///< into refs()
    uint32_t sendBegin = 0, numSends = 0; ///< into sends()
    uint32_t afterBegin = 0, numAfter = 0; ///< into after()
    uint32_t recvPos = 0;
    Connection recv = kNoConnection;  ///< the connection its message arrives on, if any
    /// refs() index of a range holding the value after the op (first dst, or the only src), -1
    /// when the value lives nowhere in this rank's buffers.
    int32_t publishRef = -1;
    bool publishInPlace[2] = {false, false};  ///< indexed by AliasMode
    uint32_t fusedOps = 1;  ///< on a chain's first op: ops [i, i + fusedOps) run as one pass
  };
  /// An op of another channel that must have finished: channel `channel` has run past `op`.
  struct Wait {
    uint32_t channel = 0;
    uint32_t op = 0;  ///< index within that channel
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
    /// posted in place, or is smaller than the transport's inPlaceMinBytes for its buffer.
    std::vector<size_t> stagingOffset;
    size_t stagingBytes = 0;
    size_t tmpBytes = 0;
  };

  /// Every op, channel after channel; channel c's ops are [channelBegin(c), channelBegin(c+1)).
  const std::vector<Op> &ops() const { return ops_; }
  uint32_t channels() const { return uint32_t(channelBegin_.size()) - 1; }
  uint32_t channelBegin(uint32_t c) const { return channelBegin_[c]; }
  const std::vector<BufRef> &refs() const { return refs_; }
  const std::vector<Connection> &sends() const { return sends_; }
  const std::vector<Wait> &after() const { return after_; }
  static constexpr size_t kNotStaged = SIZE_MAX;
  /// Resolves units to bytes for this call (reusing the previous result when unchanged).
  /// `inPlaceMinBytes`: Transport::inPlaceMinBytes of this call's in, out and tmp buffers.
  const Resolved &resolve(size_t count, DType dtype, AliasMode mode,
                          const std::array<size_t, 3> &inPlaceMinBytes = {}) const;

private:
  void readOps(ConnectionSource &connections);
  void analyseFusion();
  void analysePublishing(const ConnectionSource &connections);
  /// Whether an op that may run after op `opIndex` writes a unit aliasing `range`; `order`
  /// relates ops of different channels (nullptr with one channel).
  bool mayBeOverwritten(size_t opIndex, const BufRef &range, AliasMode mode,
                        const ProgramOrder *order) const;

  const Plan *plan_;
  int rank_;
  int64_t blockShift_ = 0;
  uint32_t unitsPerBlock_ = 0;
  std::vector<uint32_t> channelBegin_;
  std::vector<Op> ops_;
  std::vector<BufRef> refs_;
  std::vector<Connection> sends_;
  std::vector<Wait> after_;
  mutable Resolved resolved_;
};

}  // namespace collplan
