// The plan (level-3 per-rank programs) and bundle data model shared by compiler and runtime.
#pragma once

#include "runtime/core/Collective.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

inline constexpr int kPlanFormatVersion = 1;
inline constexpr int kBundleFormatVersion = 1;

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

/// One side of a transfer: the peer rank and the plan-wide transfer id that matches a send on
/// one rank with the receive on its peer.
struct Endpoint {
  int32_t peer = 0;
  uint32_t id = 0;
  bool operator==(const Endpoint &o) const { return peer == o.peer && id == o.id; }
};

/// The level-3 instruction names. Every kind is one shape of the uniform PlanOp below.
enum class OpKind : uint8_t {
  Send,            ///< srcs=[s]                       -> sends=[e]
  Recv,            ///< recv                           -> dsts=[d]
  RecvReduce,      ///< recv + srcs(>=1)               -> dsts=[d]
  RecvReduceSend,  ///< recv + srcs(>=1)               -> sends=[e] (+ optional dsts=[d])
  RecvCopySend,    ///< recv                           -> dsts=[d] + sends=[e]
  Reduce,          ///< srcs(>=2)                      -> dsts=[d]
  Copy,            ///< srcs=[s]                       -> dsts=[d]
  Dup,             ///< srcs=[s] or recv               -> two or more of dsts/sends
};

std::string_view toString(OpKind kind);
std::optional<OpKind> parseOpKind(std::string_view name);
/// The op-kind names, comma separated, for error messages ("expected one of: ...").
std::string opKindNames();

/// One instruction of a rank's program, executed in program order:
///   value  = reduce(operands)  where operands = srcs with the received data (if `recv`) inserted
///            at index `recvPos`; a single operand is the value itself. The fold is left to right
///            in operand order, so every rank that runs the same op order gets bitwise-identical
///            results.
///   then   the value is written to every dst and sent to every endpoint in `sends`.
/// All operands, dsts and the transferred message have the same length in units.
/// A send never waits for its receiver (the runtime buffers when it must); a recv waits until
/// the matching send has executed. A plan is deadlock-free iff every rank finishes under those
/// rules (checked by `checkDeadlockFree`).
struct PlanOp {
  OpKind kind = OpKind::Copy;
  std::vector<BufRef> srcs;
  std::optional<Endpoint> recv;
  uint32_t recvPos = 0;
  std::vector<BufRef> dsts;
  std::vector<Endpoint> sends;
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

struct RankProgram {
  std::vector<PlanOp> ops;
};

/// Costs the compiler predicted for the plan (α-β under the port model; see compiler/).
struct PredictedCost {
  double alphaRounds = 0;  ///< transfers on the critical path
  double beta = 0;         ///< bytes on the critical path / message size M
};

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
  std::vector<RankProgram> programs;  ///< one per rank, index = rank
  PredictedCost predicted;
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
