// What a collective computes: its valid inputs and outputs and each output's expected content.
#pragma once

#include "runtime/core/Collective.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Operation;
}

namespace collplan {

/// One (rank, chunk, slice) contribution: an input of the collective.
struct Contribution {
  int32_t rank = 0;
  int32_t chunk = 0;
  int32_t slice = 0;
  bool operator==(const Contribution &o) const {
    return rank == o.rank && chunk == o.chunk && slice == o.slice;
  }
  bool operator<(const Contribution &o) const {
    if (rank != o.rank) return rank < o.rank;
    if (chunk != o.chunk) return chunk < o.chunk;
    return slice < o.slice;
  }
};

/// The level-1 description shared by coll.collective, coll.schedule and coll.program.
struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::AllReduce;
  int ranks = 1;
  int chunks = 1;  ///< chunks of the message M (ranks for the per-rank kinds)
  int slices = 1;  ///< every chunk is cut into this many slices
  std::optional<ReduceOp> op;
  int root = 0;
  bool remoteReads = false;
  /// Level 3 posts every send that needs nothing received before any receive (schedule and
  /// program `sends_first`).
  bool sendsFirst = false;

  /// Reads the spec attributes of a collective, schedule or program op.
  static CollectiveSpec fromOp(mlir::Operation *op);

  /// The verifiers index every (rank, chunk, slice) a schedule may bind, ranks x max(ranks,
  /// chunks) x slices of them; check() refuses larger specs, so that one line of IR cannot make
  /// verification run long or allocate without limit. 2^22 admits 2048 ranks with one chunk
  /// per rank, or 1024 in 4 slices. coll-verify of an empty allgather schedule at the limit
  /// takes 0.4 s and 150 MB in a Release build (at 2^26: 7.7 s and 1.4 GB).
  static constexpr int64_t kMaxPositions = int64_t(1) << 22;

  /// True when the spec has more (rank, chunk, slice) positions than kMaxPositions.
  bool exceedsPositions() const;

  /// Why the spec is inconsistent (e.g. "allreduce needs a reduction op", or too large), or
  /// nothing. `withinPositions` false admits a spec past kMaxPositions: one that is compiled as
  /// stages of their own sizes, each verified on its own (runtime/plan/Composition.h).
  std::optional<std::string> check(bool withinPositions = true) const;

  /// Number of chunk indices an input (resp. output) of `rank` may use; 0 when it has none.
  int inputChunks(int rank) const;
  int outputChunks(int rank) const;

  /// The contributions output (rank, chunk, slice) must hold exactly once each. For barrier
  /// every rank's token (chunk 0) must reach every rank (repeats allowed).
  std::vector<Contribution> expectedOutput(int rank, int chunk, int slice) const;

  /// Two outputs have the same expected content iff they have the same class (e.g. for
  /// allreduce, every rank's copy of one chunk-slice). Lets the verifier prove each class once.
  int64_t outputClass(int rank, int chunk, int slice) const;

  /// Units of M in a plan: one per (chunk, slice); blocks of `ranks` for per-rank kinds.
  int units() const { return kind == CollectiveKind::Barrier ? 0 : chunks * slices; }

  /// True when repeats of one contribution in an output are allowed (barrier tokens).
  bool idempotent() const { return kind == CollectiveKind::Barrier; }

  std::string describe() const;
};

/// "rank 3 chunk 1" (with " slice 2" when the spec is sliced).
std::string describeContribution(const Contribution &c, bool sliced);

}  // namespace collplan
