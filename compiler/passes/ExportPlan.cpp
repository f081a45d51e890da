// coll-export-plan: every coll.program exported as a runtime plan and validated (optionally written).
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "compiler/export/ProgramToPlan.h"
#include "dialects/coll/CollOps.h"
#include "runtime/core/CountNoun.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanJson.h"

namespace collplan {
#define GEN_PASS_DEF_COLLEXPORTPLAN
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollExportPlanPass : collplan::impl::CollExportPlanBase<CollExportPlanPass> {
  using CollExportPlanBase::CollExportPlanBase;

  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-export-plan", collplan::PassInput::Programs)))
      return signalPassFailure();
    llvm::SmallVector<mlir::coll::ProgramOp> programs;
    getOperation().walk([&](mlir::coll::ProgramOp p) { programs.push_back(p); });
    if (!output.empty() && programs.size() != 1) {
      getOperation().emitError() << "coll-export-plan: output=" << output << " needs exactly one "
                                 << "coll.program in the module, found " << programs.size();
      return signalPassFailure();
    }
    for (mlir::coll::ProgramOp program : programs) {
      if (mlir::failed(collplan::checkProgram(program))) return signalPassFailure();
      if (explain) explainPlan(program);
      if (output.empty()) continue;
      try {
        collplan::savePlanFile(collplan::programToPlan(program), output);
      } catch (const collplan::PlanError &e) {
        program.emitError() << "coll-export-plan: " << e.what();
        return signalPassFailure();
      }
    }
  }

  static void explainPlan(mlir::coll::ProgramOp program) {
    const collplan::Plan plan = collplan::programToPlan(program);
    size_t instructions = 0, channels = 0, after = 0;
    for (const collplan::RankProgram &p : plan.programs) {
      instructions += p.numOps();
      channels = std::max(channels, p.channels.size());
      for (const collplan::Channel &c : p.channels)
        for (const collplan::PlanOp &op : c.ops) after += op.after.size();
    }
    program.emitRemark() << "program: " << collplan::countNoun(instructions, "instruction")
                         << " over " << collplan::countNoun(plan.ranks, "rank") << ", up to "
                         << collplan::countNoun(channels, "channel") << " per rank, "
                         << collplan::countNoun(after, "wait") << " between channels, "
                         << collplan::countNoun(plan.units, "unit") << ", scratch "
                         << collplan::countNoun(plan.scratchUnits, "unit") << ", "
                         << (plan.inplaceSafe ? "in-place safe" : "in-place calls staged");
    program.emitRemark() << "check: transfers matched in order per sender, receiver and channel, "
                            "buffers in range, deadlock-free with "
                         << collplan::kChannelDepth << " messages in flight per channel";
  }
};

}  // namespace
