// Semantics of each collective kind: valid chunk indices and the output specification.
#include "dialects/coll/CollectiveSpec.h"

#include "dialects/coll/CollOps.h"
#include "runtime/core/CountNoun.h"
#include "runtime/core/Limits.h"

#include <algorithm>
#include <limits>

namespace collplan {

static CollectiveKind toRuntime(mlir::coll::CollectiveKind kind) {
  return static_cast<CollectiveKind>(static_cast<int>(kind));
}

/// Kinds whose message has one chunk per rank (allgather, reduce-scatter, ...).
static bool hasChunkPerRank(CollectiveKind kind) {
  return kind != CollectiveKind::Barrier && messageBlocks(kind, 2) == 2;
}

/// An attribute as an int, saturated at INT_MAX: a value beyond an int is never read as a
/// small one, and check() rejects it.
static int toInt(uint64_t value) {
  return static_cast<int>(std::min<uint64_t>(value, std::numeric_limits<int>::max()));
}

template <typename SpecOp>
static CollectiveSpec specOf(SpecOp op) {
  CollectiveSpec spec;
  spec.kind = toRuntime(op.getKind());
  spec.ranks = toInt(op.getRanks());
  spec.chunks = hasChunkPerRank(spec.kind) ? spec.ranks : 1;
  if (auto chunks = op.getChunks()) spec.chunks = toInt(*chunks);
  if (auto slices = op.getSlices()) spec.slices = toInt(*slices);
  if (auto red = op.getOp()) spec.op = static_cast<ReduceOp>(static_cast<int>(*red));
  if (auto root = op.getRoot()) spec.root = toInt(*root);
  return spec;
}

CollectiveSpec CollectiveSpec::fromOp(mlir::Operation *op) {
  if (auto c = llvm::dyn_cast<mlir::coll::CollectiveOp>(op)) return specOf(c);
  if (auto p = llvm::dyn_cast<mlir::coll::ProgramOp>(op)) {
    CollectiveSpec spec = specOf(p);
    spec.sendsFirst = p.getSendsFirst();
    return spec;
  }
  auto s = llvm::cast<mlir::coll::ScheduleOp>(op);
  CollectiveSpec spec = specOf(s);
  spec.remoteReads = s.getRemoteReads();
  spec.sendsFirst = s.getSendsFirst();
  return spec;
}

bool CollectiveSpec::exceedsPositions() const {
  const int64_t positions = int64_t(ranks) * std::max(chunks, ranks);
  return positions > kMaxPositions || positions * slices > kMaxPositions;
}

std::optional<std::string> CollectiveSpec::check(bool withinPositions) const {
  std::string kindName(toString(kind));
  for (const std::string &limit : {aboveLimit("ranks", ranks, kMaxRanks),
                                   aboveLimit("chunks", chunks, kMaxUnits),
                                   aboveLimit("slices", slices, kMaxSlices),
                                   aboveLimit("units (chunks x slices)",
                                              int64_t(chunks) * slices, kMaxUnits)})
    if (!limit.empty()) return limit;
  if (withinPositions && exceedsPositions())
    return kindName + " is too large: ranks x max(ranks, chunks) x slices = " +
           std::to_string(ranks) +
           " x " + std::to_string(std::max(chunks, ranks)) + " x " + std::to_string(slices) +
           " exceeds the " + std::to_string(kMaxPositions) +
           " (rank, chunk, slice) positions the verifiers index";
  if (needsReduceOp(kind) && !op) return kindName + " needs a reduction op (op sum|prod|min|max)";
  if (!needsReduceOp(kind) && op) return kindName + " does not reduce: remove 'op'";
  if (root < 0 || root >= ranks)
    return "root " + std::to_string(root) + " is out of range for " + std::to_string(ranks) +
           " ranks";
  if (hasChunkPerRank(kind) && chunks != ranks)
    return kindName + " has one chunk per rank: chunks must be " + std::to_string(ranks) +
           " (got " + std::to_string(chunks) + ")";
  if (kind == CollectiveKind::Barrier && (chunks != 1 || slices != 1))
    return "barrier has one token per rank: chunks and slices must be 1";
  return std::nullopt;
}

int CollectiveSpec::inputChunks(int rank) const {
  switch (kind) {
  case CollectiveKind::AllReduce: case CollectiveKind::Reduce: return chunks;
  case CollectiveKind::Broadcast: return rank == root ? chunks : 0;
  case CollectiveKind::AllGather: case CollectiveKind::Gather: case CollectiveKind::Barrier:
    return 1;
  case CollectiveKind::ReduceScatter: case CollectiveKind::AllToAll: return ranks;
  case CollectiveKind::Scatter: return rank == root ? ranks : 0;
  }
  return 0;
}

int CollectiveSpec::outputChunks(int rank) const {
  switch (kind) {
  case CollectiveKind::AllReduce: case CollectiveKind::Broadcast: return chunks;
  case CollectiveKind::Reduce: return rank == root ? chunks : 0;
  case CollectiveKind::AllGather: case CollectiveKind::AllToAll: return ranks;
  case CollectiveKind::Gather: return rank == root ? ranks : 0;
  case CollectiveKind::ReduceScatter: case CollectiveKind::Scatter:
  case CollectiveKind::Barrier:
    return 1;
  }
  return 0;
}

std::vector<Contribution> CollectiveSpec::expectedOutput(int rank, int chunk, int slice) const {
  std::vector<Contribution> out;
  auto everyRank = [&](int c) {
    for (int s = 0; s < ranks; ++s) out.push_back({s, c, slice});
  };
  switch (kind) {
  case CollectiveKind::AllReduce: case CollectiveKind::Reduce: everyRank(chunk); break;
  case CollectiveKind::ReduceScatter: everyRank(rank); break;
  case CollectiveKind::AllGather: case CollectiveKind::Gather:
    out.push_back({chunk, 0, slice});
    break;
  case CollectiveKind::AllToAll: out.push_back({chunk, rank, slice}); break;
  case CollectiveKind::Broadcast: out.push_back({root, chunk, slice}); break;
  case CollectiveKind::Scatter: out.push_back({root, rank, slice}); break;
  case CollectiveKind::Barrier: everyRank(0); break;
  }
  return out;
}

int64_t CollectiveSpec::outputClass(int rank, int chunk, int slice) const {
  switch (kind) {
  case CollectiveKind::AllReduce: case CollectiveKind::Reduce: case CollectiveKind::Broadcast:
  case CollectiveKind::AllGather: case CollectiveKind::Gather:
    return int64_t(chunk) * slices + slice;
  case CollectiveKind::ReduceScatter: case CollectiveKind::Scatter:
    return int64_t(rank) * slices + slice;
  case CollectiveKind::AllToAll: return (int64_t(chunk) * ranks + rank) * slices + slice;
  case CollectiveKind::Barrier: return 0;
  }
  return 0;
}

std::string describeContribution(const Contribution &c, bool sliced) {
  std::string s = "rank " + std::to_string(c.rank) + " chunk " + std::to_string(c.chunk);
  if (sliced) s += " slice " + std::to_string(c.slice);
  return s;
}

std::string CollectiveSpec::describe() const {
  std::string s(toString(kind));
  s += " on " + countNoun(ranks, "rank") + ", " + countNoun(chunks, "chunk");
  if (slices > 1) s += " x " + countNoun(slices, "slice");
  if (op) s += ", op " + std::string(toString(*op));
  if (needsRoot(kind)) s += ", root " + std::to_string(root);
  return s;
}

}  // namespace collplan
