// Names, sizes and buffer shapes of collective kinds, reduction ops and dtypes.
#include "runtime/core/Collective.h"
#include "runtime/core/Text.h"

#include <array>

namespace collplan {
namespace {

constexpr std::array<std::string_view, kNumCollectiveKinds> kKindNames = {
    "allreduce", "allgather", "reduce_scatter", "alltoall", "broadcast",
    "reduce",    "gather",    "scatter",        "barrier"};
constexpr std::array<std::string_view, kNumCollectiveKinds> kMpiNames = {
    "MPI_Allreduce", "MPI_Allgather", "MPI_Reduce_scatter_block",
    "MPI_Alltoall",  "MPI_Bcast",     "MPI_Reduce",
    "MPI_Gather",    "MPI_Scatter",   "MPI_Barrier"};
constexpr std::array<std::string_view, 4> kOpNames = {"sum", "prod", "min", "max"};
constexpr std::array<std::string_view, kNumDTypes> kDTypeNames = {"f32", "f64", "f16", "bf16",
                                                                  "i32", "i64", "u8"};
constexpr std::array<std::string_view, 3> kBufferNames = {"in", "out", "tmp"};

template <typename Enum, size_t N>
std::optional<Enum> parseName(const std::array<std::string_view, N> &names,
                              std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace

std::string_view toString(CollectiveKind kind) { return kKindNames[static_cast<int>(kind)]; }
std::string_view toString(ReduceOp op) { return kOpNames[static_cast<int>(op)]; }
std::string_view toString(DType dtype) { return kDTypeNames[static_cast<int>(dtype)]; }
std::string_view toString(BufferKind buf) { return kBufferNames[static_cast<int>(buf)]; }
std::string_view mpiFunctionName(CollectiveKind kind) {
  return kMpiNames[static_cast<int>(kind)];
}

std::optional<CollectiveKind> parseCollectiveKind(std::string_view name) {
  // Accept the hyphenated spelling users type on command lines too.
  if (name == "reduce-scatter" || name == "reducescatter") return CollectiveKind::ReduceScatter;
  if (name == "all-to-all" || name == "all_to_all") return CollectiveKind::AllToAll;
  return parseName<CollectiveKind>(kKindNames, name);
}
std::optional<ReduceOp> parseReduceOp(std::string_view name) {
  return parseName<ReduceOp>(kOpNames, name);
}
std::optional<DType> parseDType(std::string_view name) {
  return parseName<DType>(kDTypeNames, name);
}
std::optional<BufferKind> parseBufferKind(std::string_view name) {
  return parseName<BufferKind>(kBufferNames, name);
}

std::string collectiveKindNames() { return joined(kKindNames); }
std::string reduceOpNames() { return joined(kOpNames); }
std::string dtypeNames() { return joined(kDTypeNames); }

int64_t inPlaceBlockShift(CollectiveKind kind, int root, int rank) {
  switch (kind) {
  case CollectiveKind::AllGather: return rank;
  case CollectiveKind::ReduceScatter: return -int64_t(rank);
  case CollectiveKind::Gather: return rank == root ? root : 0;
  case CollectiveKind::Scatter: return rank == root ? -int64_t(root) : 0;
  default: return 0;
  }
}

double busBandwidthFactor(CollectiveKind kind, int ranks) {
  const double n = ranks;
  switch (kind) {
  case CollectiveKind::AllReduce: return ranks > 1 ? 2.0 * (n - 1) / n : 0.0;
  case CollectiveKind::AllGather: case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllToAll: case CollectiveKind::Gather: case CollectiveKind::Scatter:
    return ranks > 1 ? (n - 1) / n : 0.0;
  case CollectiveKind::Broadcast: case CollectiveKind::Reduce: return 1.0;
  case CollectiveKind::Barrier: return 0.0;
  }
  return 0.0;
}

}  // namespace collplan
