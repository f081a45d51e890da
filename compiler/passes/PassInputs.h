// requireLowered: a pass that acts on schedules or programs refuses ops of an earlier level
// instead of silently leaving them alone.
#pragma once

#include "dialects/coll/CollOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace collplan {

/// What a pass acts on.
enum class PassInput { Schedules, Programs };

/// Fails `pass` when `module` holds nothing it acts on (no schedule for a schedule pass, no
/// program for a program pass) but ops it cannot act on yet: a coll.collective (run a lowering
/// first) or, for a program pass, a coll.schedule (run --coll-to-program first). The pass would
/// otherwise succeed having done nothing. Modules that mix levels (a family's lowering pass
/// leaves other families' collectives alone) are fine.
inline mlir::LogicalResult requireLowered(mlir::ModuleOp module, llvm::StringRef pass,
                                          PassInput input) {
  mlir::Operation *earlier = nullptr;
  bool found = false;
  module.walk([&](mlir::Operation *op) {
    const bool isSchedule = llvm::isa<mlir::coll::ScheduleOp>(op);
    const bool isProgram = llvm::isa<mlir::coll::ProgramOp>(op);
    found |= input == PassInput::Schedules ? isSchedule : isProgram;
    if (!earlier && (llvm::isa<mlir::coll::CollectiveOp>(op) ||
                     (isSchedule && input == PassInput::Programs)))
      earlier = op;
  });
  if (found || !earlier) return mlir::success();
  if (llvm::isa<mlir::coll::CollectiveOp>(earlier))
    return earlier->emitOpError()
           << "is not lowered yet: " << pass << " acts on "
           << (input == PassInput::Schedules ? "schedules" : "programs")
           << ", and the module has none (lower it first: --coll-lower, or plan-compile)";
  return earlier->emitOpError() << "is not a program yet: " << pass
                                << " acts on programs, and the module has none (run "
                                   "--coll-to-program first)";
}

}  // namespace collplan
