// coll.program -> Plan, and validation through the runtime's own loader checks.
#include "compiler/export/ProgramToPlan.h"

#include "dialects/coll/CollOps.h"
#include "dialects/coll/CollectiveSpec.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanValidate.h"

using namespace mlir;
using namespace mlir::coll;

namespace collplan {

Plan programToPlan(ProgramOp program) {
  CollectiveSpec spec = CollectiveSpec::fromOp(program);
  Plan plan;
  plan.collective = spec.kind;
  plan.ranks = spec.ranks;
  plan.op = spec.op;
  plan.root = needsRoot(spec.kind) ? spec.root : 0;
  plan.algorithm = program.getAlgorithm().value_or("custom").str();
  plan.params = nlohmann::json::object();
  plan.params["chunks"] = spec.chunks;
  plan.params["slices"] = spec.slices;
  plan.units = uint32_t(program.getUnits());
  plan.scratchUnits = uint32_t(program.getScratch());
  plan.inplaceSafe = program->hasAttr("coll.inplace_safe");
  plan.programs.resize(spec.ranks);
  for (auto rankOp : program.getBody().front().getOps<RankOp>()) {
    auto &ops = plan.programs[rankOp.getRank()].ops;
    for (Operation &instr : rankOp.getBody().front()) ops.push_back(toPlanOp(&instr));
  }
  return plan;
}

LogicalResult checkProgram(ProgramOp program) {
  try {
    validatePlan(programToPlan(program), "coll.program @" + program.getSymName().str());
  } catch (const PlanError &e) {
    return program.emitOpError() << "is not a valid plan: " << e.what();
  }
  return success();
}

}  // namespace collplan
