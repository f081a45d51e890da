// Collective kinds, reduction ops, dtypes and buffer kinds shared by every collplan layer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace collplan {

enum class CollectiveKind : uint8_t {
  AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, Reduce, Gather, Scatter, Barrier
};
inline constexpr int kNumCollectiveKinds = 9;

enum class ReduceOp : uint8_t { Sum, Prod, Min, Max };

enum class DType : uint8_t { F32, F64, F16, BF16, I32, I64, U8 };
inline constexpr int kNumDTypes = 7;

/// The three buffers a plan addresses: the caller's input and output, and runtime scratch.
enum class BufferKind : uint8_t { In, Out, Tmp };

std::string_view toString(CollectiveKind kind);
std::string_view toString(ReduceOp op);
std::string_view toString(DType dtype);
std::string_view toString(BufferKind buf);
/// What MPI calls the collective ("MPI_Allreduce", "MPI_Reduce_scatter_block", ...), for the
/// MPI baselines' headers and messages.
std::string_view mpiFunctionName(CollectiveKind kind);
std::optional<CollectiveKind> parseCollectiveKind(std::string_view name);
std::optional<ReduceOp> parseReduceOp(std::string_view name);
std::optional<DType> parseDType(std::string_view name);
std::optional<BufferKind> parseBufferKind(std::string_view name);

/// Lists of valid names, for error messages ("expected one of: ...").
std::string collectiveKindNames();
std::string reduceOpNames();
std::string dtypeNames();

/// `parse(text)`, or std::invalid_argument "<what>: unknown value "x" (expected one of:
/// <names>)": the one error of a name given on a command line or in a call.
template <typename T>
T parseNamed(const std::string &what, const std::string &text,
             std::optional<T> (*parse)(std::string_view), const std::string &names) {
  if (std::optional<T> v = parse(text)) return *v;
  throw std::invalid_argument(what + ": unknown value \"" + text + "\" (expected one of: " +
                              names + ")");
}

/// parseNamed over a list, for options that take several names: blanks skipped, repeats kept
/// once, in order (an empty result is the caller's to refuse).
template <typename T>
std::vector<T> parseNamedList(const std::string &what, const std::vector<std::string> &texts,
                              std::optional<T> (*parse)(std::string_view),
                              const std::string &names) {
  std::vector<T> out;
  for (const std::string &text : texts) {
    if (text.empty()) continue;
    const T v = parseNamed(what, text, parse, names);
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

// The predicates below are inline: every call of the API runs them (the per-call path is
// measured in bench/runtime/DispatchBench.cpp).

inline size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32: case DType::I32: return 4;
  case DType::F64: case DType::I64: return 8;
  case DType::F16: case DType::BF16: return 2;
  case DType::U8: return 1;
  }
  return 0;
}

/// True for kinds that combine data (allreduce, reduce-scatter, reduce).
inline bool needsReduceOp(CollectiveKind kind) {
  return kind == CollectiveKind::AllReduce || kind == CollectiveKind::ReduceScatter ||
         kind == CollectiveKind::Reduce;
}
/// True for rooted kinds (broadcast, reduce, gather, scatter).
inline bool needsRoot(CollectiveKind kind) {
  return kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce ||
         kind == CollectiveKind::Gather || kind == CollectiveKind::Scatter;
}

/// The message buffer "M" of a collective (the larger of a rank's in/out buffers) is made of
/// `blocks` equal blocks of `count` elements: one per rank for allgather, reduce-scatter,
/// all-to-all, gather and scatter; one otherwise. Plans cut each block into units.
inline int messageBlocks(CollectiveKind kind, int ranks) {
  switch (kind) {
  case CollectiveKind::AllGather: case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllToAll: case CollectiveKind::Gather: case CollectiveKind::Scatter:
    return ranks;
  case CollectiveKind::Barrier:
    return 0;
  default:
    return 1;
  }
}

/// Blocks of M held by a rank's input / output buffer (0 where the rank has none, e.g. a
/// non-root's output of reduce or gather, or every buffer of a barrier).
inline int inputBlocks(CollectiveKind kind, int ranks, int rank, int root) {
  switch (kind) {
  case CollectiveKind::AllReduce: case CollectiveKind::Reduce: return 1;
  case CollectiveKind::AllGather: case CollectiveKind::Gather: return 1;
  case CollectiveKind::ReduceScatter: case CollectiveKind::AllToAll: return ranks;
  case CollectiveKind::Broadcast: return rank == root ? 1 : 0;
  case CollectiveKind::Scatter: return rank == root ? ranks : 0;
  case CollectiveKind::Barrier: return 0;
  }
  return 0;
}
inline int outputBlocks(CollectiveKind kind, int ranks, int rank, int root) {
  switch (kind) {
  case CollectiveKind::AllReduce: case CollectiveKind::Broadcast: return 1;
  case CollectiveKind::AllGather: case CollectiveKind::AllToAll: return ranks;
  case CollectiveKind::ReduceScatter: case CollectiveKind::Scatter: return 1;
  case CollectiveKind::Reduce: return rank == root ? 1 : 0;
  case CollectiveKind::Gather: return rank == root ? ranks : 0;
  case CollectiveKind::Barrier: return 0;
  }
  return 0;
}

/// In an in-place call, where rank `rank`'s input starts in its output, in blocks of M (the
/// canonical layout: allgather's input is the rank's own output block, and so on); 0 for kinds
/// whose in-place input is the output itself.
int64_t inPlaceBlockShift(CollectiveKind kind, int root, int rank);

/// nccl-tests bus-bandwidth factor: busbw = algbw * factor.
double busBandwidthFactor(CollectiveKind kind, int ranks);

}  // namespace collplan
