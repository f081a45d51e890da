// coll-cost's analysis: α-β cost under the port model, bytes, memory touches and scratch.
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class Operation;
namespace coll {
class ScheduleOp;
}
}  // namespace mlir

namespace collplan {

/// The cost of one schedule. Sizes are in chunk units (one value = one chunk or slice) and
/// as fractions of the message size M (`unitFraction` = size of one unit / M).
struct ScheduleCost {
  double unitFraction = 0;
  /// Transfers on the critical path: transfers are list-scheduled into synchronous rounds in
  /// which each rank sends at most one message and receives at most one (the port model).
  int64_t alphaRounds = 0;
  /// Σ over rounds of the largest message in the round, divided by M: the textbook β
  /// coefficient (e.g. 2(N-1)/N for ring allreduce).
  double beta = 0;
  int64_t transfers = 0;
  double bytesMoved = 0;  ///< Σ transfer sizes / M
  /// Reads and writes of each rank's memory, in units (a dup is 1 read and one write per
  /// destination; an n-ary reduce n reads and 1 write).
  std::vector<int64_t> reads, writes;
  /// Peak number of values a rank holds outside its in/out buffers, per rank, in units.
  std::vector<int64_t> scratchUnits;

  int64_t touches(int rank) const { return reads[rank] + writes[rank]; }
  int64_t totalTouches() const;
  int64_t peakScratchUnits() const;
  /// The α-β time for per-message latency `alphaUs` and bandwidth `bytesPerUs` at size M.
  double timeUs(double alphaUs, double bytesPerUs, double messageBytes) const {
    return alphaRounds * alphaUs + beta * messageBytes / bytesPerUs;
  }
};

/// Computes the cost of `schedule` (which need not verify: the cost of a broken schedule is
/// still well defined).
ScheduleCost analyzeCost(mlir::coll::ScheduleOp schedule);

/// Sets `step` on every op of `schedule` to its round in the port-model list schedule (the
/// round a transfer occupies; for local ops, the round their operands are ready) and reorders
/// the body by step, stably, so each rank's program runs its work round by round. Steps
/// respect dataflow, so the order stays valid. A schedule marked `own_steps` keeps the steps
/// its algorithm gave (an op without one takes its operands' latest) and is reordered by them.
void assignSteps(mlir::coll::ScheduleOp schedule);

/// Per reduction op (coll.reduce, coll.reduce_send), the port-model round in which each operand
/// arrives at the reducing rank, -1 for an operand already there. A reduction's `step` is the
/// last of them; level-3 export gives each operand's send and receive its own round.
using TransferRounds = llvm::DenseMap<mlir::Operation *, llvm::SmallVector<int64_t>>;
TransferRounds operandTransferRounds(mlir::coll::ScheduleOp schedule);

/// While one lives on this thread, operandTransferRounds takes the port-model list schedule
/// that the analyzeCost before it computed, when the schedule is unchanged (the same ops in the
/// same order, with the same attributes and operands): coll-compile's cost report and
/// coll-to-program ask in turn. One spans one pipeline run, so no result outlives its IR.
class SettledScheduleReuse {
public:
  SettledScheduleReuse();
  ~SettledScheduleReuse();
  SettledScheduleReuse(const SettledScheduleReuse &) = delete;
  SettledScheduleReuse &operator=(const SettledScheduleReuse &) = delete;

  struct State;

private:
  State *state_;
  State *outer_;  ///< the one active before this (nested pipelines)
};

/// The cost as an MLIR analysis, so passes and the tuner can share one computation.
class CostAnalysis {
public:
  explicit CostAnalysis(mlir::Operation *scheduleOp);
  const ScheduleCost &cost() const { return cost_; }

private:
  ScheduleCost cost_;
};

/// A readable multi-line summary of `cost` (what coll-cost prints).
std::string formatCost(const ScheduleCost &cost, bool perRank);

}  // namespace collplan
