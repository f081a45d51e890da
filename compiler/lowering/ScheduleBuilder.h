// ScheduleBuilder: emits level-2 chunk dataflow ops and tracks where each value resides.
#pragma once

#include "dialects/coll/CollOps.h"
#include "dialects/coll/CollectiveSpec.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <memory>
#include <vector>

namespace collplan {

/// A coll.collective asking for `spec` (kind, ranks, op, root; the algorithm picks chunks and
/// slices) to be lowered with `algorithm`, created at `builder`'s insertion point.
mlir::coll::CollectiveOp createCollectiveOp(mlir::OpBuilder &builder, mlir::Location loc,
                                            const CollectiveSpec &spec, llvm::StringRef name,
                                            llvm::StringRef algorithm);

/// How one stage of a composed schedule (e.g. hierarchical's inter-node allreduce) sits in the
/// schedule it is part of: the stage's rank r is `members[r]`, its inputs and outputs are values
/// of the enclosing schedule, and its steps come after the earlier stages'.
struct StageMapping {
  std::vector<int> members;
  /// The value the stage reads as rank `rank`'s input (chunk, slice), in its own numbering.
  std::function<mlir::Value(int rank, int chunk, int slice)> input;
  /// Receives the value the stage binds as rank `rank`'s output (chunk, slice).
  std::function<void(mlir::Value, int rank, int chunk, int slice)> output;
  int firstStep = 0;  ///< the stage's step 0 in the enclosing schedule
};

/// Builds one coll.schedule. Lowerings describe algorithms with it ("copy this value to rank
/// 3", "reduce these at rank 2") and never touch op builders directly.
class ScheduleBuilder {
public:
  /// Creates an empty schedule for `spec` named `name` at `builder`'s insertion point.
  ScheduleBuilder(mlir::OpBuilder &builder, mlir::Location loc, const CollectiveSpec &spec,
                  llvm::StringRef name, llvm::StringRef algorithm);

  /// A builder for one stage of this schedule: `spec` over `mapping.members`, emitting into
  /// this schedule (see StageMapping). Lowerings use it unchanged.
  ScheduleBuilder stage(const CollectiveSpec &spec, StageMapping mapping);

  mlir::coll::ScheduleOp schedule() const { return schedule_; }
  const CollectiveSpec &spec() const { return spec_; }
  int ranks() const { return spec_.ranks; }

  /// Rank `rank`'s input for (chunk, slice); created once, on first use.
  mlir::Value input(int rank, int chunk, int slice = 0);
  mlir::Value copy(mlir::Value v, int toRank);
  /// Left fold of `operands` at `rank`; one operand is returned unchanged. A reduce whose only
  /// use is a copy to another rank becomes one reduce_send in coll-fuse-reduce-copy, the one
  /// place fusion is decided: lowerings and templates emit the plain dataflow.
  mlir::Value reduce(llvm::ArrayRef<mlir::Value> operands, int rank);
  /// One read, one write per rank in `toRanks` (a copy when there is one).
  llvm::SmallVector<mlir::Value> dup(mlir::Value v, llvm::ArrayRef<int> toRanks);
  void output(mlir::Value v, int rank, int chunk, int slice = 0);

  /// Where `v` resides (in a stage, its rank in the stage, or -1 outside it).
  int rankOf(mlir::Value v) const;

  /// Subsequent ops are created at `loc` (a template op's, so errors point at its line).
  void setLocation(mlir::Location loc) { loc_ = loc; }

  /// Subsequent ops carry `step` (and `channel` when >= 0) attributes; -1 clears.
  void setStep(int step) { step_ = step; }
  /// Marks the schedule `own_steps`: the steps set here are the algorithm's own order of the
  /// links, which coll-schedule-steps keeps (ops without one take their operands' latest).
  void keepOwnSteps();
  void setChannel(int channel) { channel_ = channel; }
  /// The largest step an op of the schedule carries so far, in this builder's numbering (a
  /// stage's step 0 is its firstStep); negative when none does.
  int lastStep() const { return *lastStep_ - (stage_ ? stage_->firstStep : 0); }

private:
  ScheduleBuilder(const ScheduleBuilder &parent, const CollectiveSpec &spec,
                  StageMapping mapping);
  mlir::Value track(mlir::Operation *op, int rank);
  void annotate(mlir::Operation *op);
  /// A rank of this builder in the schedule's numbering.
  int global(int rank) const { return stage_ ? stage_->members.at(size_t(rank)) : rank; }

  mlir::OpBuilder builder_;
  mlir::Location loc_;
  CollectiveSpec spec_;
  mlir::coll::ScheduleOp schedule_;
  /// Inputs created so far, flat-indexed by (rank, chunk, slice).
  std::vector<mlir::Value> inputs_;
  int step_ = -1;
  int channel_ = -1;
  /// Set in a stage builder: how the stage maps into the schedule.
  std::shared_ptr<const StageMapping> stage_;
  /// Shared by a schedule's builder and its stages.
  std::shared_ptr<int> lastStep_ = std::make_shared<int>(-1);
};

}  // namespace collplan
