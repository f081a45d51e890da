// The plan (level-3 per-rank programs) and bundle data model shared by compiler and runtime.
#pragma once

#include "runtime/core/Collective.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

inline constexpr int kPlanFormatVersion = 2;
inline constexpr int kBundleFormatVersion = 2;

/// Channels one rank's program may have: NCCL's MAXCHANNELS, more thread blocks or DMA queues
/// than any device offers one collective.
inline constexpr uint32_t kMaxChannels = 32;
/// Messages one channel may have sent to one peer and not yet seen consumed: a further send on
/// that (peer, channel) waits for the receiver (NCCL's NCCL_STEPS). Part of the execution model:
/// every backend gives at least this much room, and plans are checked deadlock-free with it.
inline constexpr uint32_t kChannelDepth = 8;

/// A range of units [offset, offset + length) in one of the plan's buffers. A plan cuts the
/// message buffer M into `units` equal parts, so every reference is size-generic.
struct BufRef {
  BufferKind buf = BufferKind::In;
  uint32_t offset = 0;
  uint32_t length = 0;
  bool operator==(const BufRef &o) const {
    return buf == o.buf && offset == o.offset && length == o.length;
  }
};

/// True when the unit ranges `a` and `b` of one rank may share memory. Separate buffers: only
/// ranges of the same buffer, when they intersect. `inPlace`: in and out are one space with in
/// starting `inShift` units into out (inPlaceBlockShift × units per block); tmp stays apart. A
/// pair that overlaps with separate buffers overlaps in place too.
bool rangesOverlap(const BufRef &a, const BufRef &b, int64_t inShift, bool inPlace);

/// The level-3 instruction names. Every kind is one shape of the uniform PlanOp below.
enum class OpKind : uint8_t {
  Send,            ///< srcs=[s]                       -> sends=[q]
  Recv,            ///< recv                           -> dsts=[d]
  RecvReduce,      ///< recv + srcs(>=1)               -> dsts=[d]
  RecvReduceSend,  ///< recv + srcs(>=1)               -> sends=[q] (+ optional dsts=[d])
  RecvCopySend,    ///< recv                           -> dsts=[d] + sends=[q]
  Reduce,          ///< srcs(>=2)                      -> dsts=[d]
  Copy,            ///< srcs=[s]                       -> dsts=[d]
  Dup,             ///< srcs=[s] or recv               -> two or more of dsts/sends
};

std::string_view toString(OpKind kind);
std::optional<OpKind> parseOpKind(std::string_view name);
/// The op-kind names, comma separated, for error messages ("expected one of: ...").
std::string opKindNames();

/// An op of another channel of the same rank: programs[r].channels[channel].ops[op].
struct OpRef {
  uint32_t channel = 0;
  uint32_t op = 0;
  bool operator==(const OpRef &o) const { return channel == o.channel && op == o.op; }
};

/// One instruction of a channel, executed in the channel's order:
///   value  = reduce(operands)  where operands = srcs with the received message (if `recv`)
///            inserted at index `recvPos`; a single operand is the value itself. The fold is left
///            to right in operand order, so every rank that runs the same op order gets
///            bitwise-identical results.
///   then   the value is written to every dst and sent to every peer in `sends`.
/// All operands, dsts and the transferred message have the same length in units.
///
/// Transfers are matched per (sender, receiver, channel) in program order, as MPI and NCCL match
/// messages: the k-th send from rank p to rank q on channel c is received by the k-th recv from p
/// on channel c of rank q. A send waits only while kChannelDepth earlier messages of its
/// (peer, channel) are unconsumed; a recv waits until its message arrived; an op starts once
/// every op it names in `after` (on other channels of its rank) has finished. An op runs
/// atomically once all of that holds. Checked by `checkDeadlockFree`.
struct PlanOp {
  OpKind kind = OpKind::Copy;
  std::vector<BufRef> srcs;
  std::optional<int32_t> recv;  ///< the rank this op receives from, on its channel
  uint32_t recvPos = 0;
  std::vector<BufRef> dsts;
  std::vector<int32_t> sends;   ///< the ranks this op sends its value to, on its channel
  /// Ops of other channels of this rank that must finish before this one starts (the ordering
  /// between channels; within a channel, program order).
  std::vector<OpRef> after;
  /// Scheduling step assigned by the compiler (informational: plan-view, simulator traces).
  int32_t step = -1;

  /// Length in units of the op's value (that of its first buffer reference; 0 for tokens).
  uint32_t length() const {
    if (!srcs.empty()) return srcs.front().length;
    if (!dsts.empty()) return dsts.front().length;
    return 0;
  }
  /// Number of reduction operands, counting the received one.
  size_t numOperands() const { return srcs.size() + (recv ? 1 : 0); }
};

/// An ordered op list that runs concurrently with the rank's other channels (a GPU thread
/// block, a DMA queue, one stream of a CPU rank's progress loop).
struct Channel {
  std::vector<PlanOp> ops;
};

/// One rank's program: its channels. A rank with nothing to do has none.
struct RankProgram {
  std::vector<Channel> channels;

  /// The ops of channel `c`, adding empty channels up to it (for code that builds programs).
  std::vector<PlanOp> &channel(size_t c);
  size_t numOps() const;
};

/// How the ranks' programs of a symmetric plan follow from rank 0's (the plan file stores that one
/// program; `Symmetry.h` instantiates the others). Under the group's map σ_r of rank r, rank r's
/// program is rank 0's with every peer p replaced by σ_r(p) and every chunk c of the message
/// (`stride` units of a buffer that spans the whole message) replaced by σ_r(c). Ring, pairwise,
/// recursive doubling and dissemination schedules are symmetric; rooted ones never are.
enum class SymmetryGroup : uint8_t {
  Rotation,  ///< σ_r(x) = (x + r) mod N
  Xor,       ///< σ_r(x) = x XOR r (N a power of two)
};

struct PlanSymmetry {
  SymmetryGroup group = SymmetryGroup::Rotation;
  /// Units per chunk: `units / ranks`, or 0 when no buffer moves with the rank (a plan of one
  /// unit, a barrier).
  uint32_t stride = 0;
  /// Ops of rank 0's program whose received operand takes its place by rank, as a fold in rank
  /// order needs: before the op's one src where the sender's rank is lower than the receiver's,
  /// after it otherwise (recursive doubling and halving fold the lower rank's partial first).
  std::vector<OpRef> rankOrderedReceives;
  bool operator==(const PlanSymmetry &o) const {
    return group == o.group && stride == o.stride && rankOrderedReceives == o.rankOrderedReceives;
  }
};

/// Costs the compiler predicted for the plan (α-β under the port model; see compiler/).
struct PredictedCost {
  double alphaRounds = 0;  ///< transfers on the critical path
  double beta = 0;         ///< bytes on the critical path / message size M
};

struct HierarchicalStages;  // Composition.h

struct Plan {
  int formatVersion = kPlanFormatVersion;
  CollectiveKind collective = CollectiveKind::AllReduce;
  int ranks = 1;
  std::optional<ReduceOp> op;  ///< required for reducing collectives
  int root = 0;                ///< meaningful for rooted collectives
  std::string algorithm;
  nlohmann::json params = nlohmann::json::object();
  /// M is cut into `units` equal parts: `messageBlocks` blocks of `units / blocks` units each.
  uint32_t units = 1;
  uint32_t scratchUnits = 0;
  /// True when the programs never read an `in` unit after writing the `out` unit that aliases it,
  /// so an in-place call (in == out) needs no staging copy.
  bool inplaceSafe = false;
  /// True when every reduced output unit is the left fold of the ranks' contributions in rank
  /// order, (((x0 + x1) + x2) + ...), whatever the message size ("reduction_order": "rank"):
  /// plans so marked give bitwise-identical results to one another. The proof checks the mark.
  bool rankOrderReductions = false;
  std::vector<RankProgram> programs;  ///< one per rank, index = rank
  /// Set when every program is rank 0's instantiated for its rank: the file then stores rank 0's
  /// program alone ("symmetric"), and a rank that loads its own program builds it in time
  /// proportional to that program. `programs` always holds the instantiated programs.
  std::optional<PlanSymmetry> symmetry;
  /// Set when the plan is a composition of stage plans of their own sizes (Composition.h): the
  /// file stores the stages ("composed"), and each rank builds its program from them in time
  /// proportional to it. `programs` always holds the built programs.
  std::shared_ptr<const HierarchicalStages> composition;
  PredictedCost predicted;
  /// -1: every rank's program is here. A rank that loaded only its own program (PlanLoadOptions)
  /// has its rank here, and the other programs are empty.
  int onlyRank = -1;
};

/// The measured (and predicted) time of one candidate for a bucket.
struct BucketCandidate {
  std::string algorithm;
  double measuredUs = 0;
  double predictedUs = 0;
};

/// A size bucket [minBytes, maxBytes] (inclusive) and the plan that serves it.
struct Bucket {
  uint64_t minBytes = 0;
  uint64_t maxBytes = 0;
  Plan plan;
  BucketCandidate winner;
  std::optional<BucketCandidate> runnerUp;
};

/// Buckets for one (collective, dtype, op), sorted by size, covering [0, UINT64_MAX] without
/// gaps or overlaps (validated at load time).
struct BucketTable {
  CollectiveKind collective = CollectiveKind::AllReduce;
  DType dtype = DType::F32;
  std::optional<ReduceOp> op;
  std::vector<Bucket> buckets;

  /// The bucket whose range holds `bytes`, in O(log buckets); identical on every rank.
  const Bucket &lookup(uint64_t bytes) const;
};

struct Bundle {
  int formatVersion = kBundleFormatVersion;
  std::string topologyFingerprint;
  /// The topology the bundle was tuned on (its JSON document), so that a simulation of the
  /// bundle needs no other file; null when the tuner had none to record.
  nlohmann::json topology;
  std::string backend;
  int ranks = 1;
  std::string toolVersion;
  nlohmann::json tunerSettings = nlohmann::json::object();
  std::vector<BucketTable> tables;

  /// The table for (collective, dtype, op), or nullptr when the bundle has none. `op` is ignored
  /// for collectives that do not reduce (their tables carry no op), so callers may pass theirs.
  const BucketTable *find(CollectiveKind kind, DType dtype, std::optional<ReduceOp> op) const;
};

}  // namespace collplan
