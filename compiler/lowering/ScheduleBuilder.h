// ScheduleBuilder: emits level-2 chunk dataflow ops and tracks where each value resides.
#pragma once

#include "dialects/coll/CollOps.h"
#include "dialects/coll/CollectiveSpec.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace collplan {

/// A coll.collective asking for `spec` (kind, ranks, op, root; the algorithm picks chunks and
/// slices) to be lowered with `algorithm`, created at `builder`'s insertion point.
mlir::coll::CollectiveOp createCollectiveOp(mlir::OpBuilder &builder, mlir::Location loc,
                                            const CollectiveSpec &spec, llvm::StringRef name,
                                            llvm::StringRef algorithm);

/// Builds one coll.schedule. Lowerings describe algorithms with it ("copy this value to rank
/// 3", "reduce these at rank 2") and never touch op builders directly.
class ScheduleBuilder {
public:
  /// Creates an empty schedule for `spec` named `name` at `builder`'s insertion point.
  ScheduleBuilder(mlir::OpBuilder &builder, mlir::Location loc, const CollectiveSpec &spec,
                  llvm::StringRef name, llvm::StringRef algorithm);

  mlir::coll::ScheduleOp schedule() const { return schedule_; }
  const CollectiveSpec &spec() const { return spec_; }
  int ranks() const { return spec_.ranks; }

  /// Rank `rank`'s input for (chunk, slice); created once, on first use.
  mlir::Value input(int rank, int chunk, int slice = 0);
  mlir::Value copy(mlir::Value v, int toRank);
  /// Left fold of `operands` at `rank`; one operand is returned unchanged.
  mlir::Value reduce(llvm::ArrayRef<mlir::Value> operands, int rank);
  /// Fused reduce at `rank` whose result is written only at `toRank`.
  mlir::Value reduceSend(llvm::ArrayRef<mlir::Value> operands, int rank, int toRank);
  /// One read, one write per rank in `toRanks` (a copy when there is one).
  llvm::SmallVector<mlir::Value> dup(mlir::Value v, llvm::ArrayRef<int> toRanks);
  void output(mlir::Value v, int rank, int chunk, int slice = 0);

  /// Where `v` resides.
  int rankOf(mlir::Value v) const { return int(mlir::coll::residentRank(v)); }

  /// Subsequent ops are created at `loc` (a template op's, so errors point at its line).
  void setLocation(mlir::Location loc) { loc_ = loc; }

  /// Subsequent ops carry `step` (and `channel` when >= 0) attributes; -1 clears.
  void setStep(int step) { step_ = step; }
  void setChannel(int channel) { channel_ = channel; }

private:
  mlir::Value track(mlir::Operation *op, int rank);
  void annotate(mlir::Operation *op);

  mlir::OpBuilder builder_;
  mlir::Location loc_;
  CollectiveSpec spec_;
  mlir::coll::ScheduleOp schedule_;
  /// Inputs created so far, flat-indexed by (rank, chunk, slice).
  std::vector<mlir::Value> inputs_;
  int step_ = -1;
  int channel_ = -1;
};

}  // namespace collplan
