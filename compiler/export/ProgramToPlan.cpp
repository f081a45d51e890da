// coll.program -> Plan (channels, `after` references), and validation through the runtime's
// own loader checks.
#include "compiler/export/ProgramToPlan.h"

#include "compiler/export/Conflicts.h"
#include "compiler/export/RankOps.h"
#include "dialects/coll/CollOps.h"
#include "dialects/coll/CollectiveSpec.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/PlanVerify.h"
#include "runtime/plan/Symmetry.h"

#include <map>

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// One rank's instructions as channels, with `after` references where channels conflict.
RankProgram exportRank(const std::vector<Instruction> &instrs, UnitLayout layout) {
  RankProgram program;
  std::vector<OpRef> where(instrs.size());
  for (size_t i = 0; i < instrs.size(); ++i) {
    std::vector<PlanOp> &ops = program.channel(instrs[i].channel);
    where[i] = OpRef{instrs[i].channel, uint32_t(ops.size())};
    ops.push_back(static_cast<const PlanOp &>(instrs[i]));
  }
  const std::vector<std::vector<uint32_t>> deps = instructionDependencies(instrs, layout);
  for (size_t i = 0; i < instrs.size(); ++i) {
    std::map<uint32_t, uint32_t> latest;  // other channel -> its latest op this one follows
    for (uint32_t j : deps[i]) {
      if (where[j].channel == where[i].channel) continue;  // program order already holds
      auto [it, fresh] = latest.try_emplace(where[j].channel, where[j].op);
      if (!fresh) it->second = std::max(it->second, where[j].op);
    }
    PlanOp &op = program.channels[where[i].channel].ops[where[i].op];
    for (auto [channel, index] : latest) op.after.push_back(OpRef{channel, index});
  }
  return program;
}

}  // namespace

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
  // Decided on the final order (a hand-written program carries no coll.inplace_safe mark).
  plan.inplaceSafe = inPlaceSafe(program);
  if (auto cost = program->getAttrOfType<DictionaryAttr>("coll.cost")) {
    if (auto rounds = cost.getAs<IntegerAttr>("alpha_rounds"))
      plan.predicted.alphaRounds = double(rounds.getInt());
    if (auto beta = cost.getAs<FloatAttr>("beta")) plan.predicted.beta = beta.getValueAsDouble();
  }
  plan.programs.resize(spec.ranks);
  for (auto rankOp : program.getBody().front().getOps<RankOp>()) {
    const int rank = int(rankOp.getRank());
    const UnitLayout layout = plan.inplaceSafe ? inPlaceLayout(program, rank) : UnitLayout{};
    plan.programs[size_t(rank)] = exportRank(readRankOps(rankOp), layout);
  }
  // A plan whose ranks run one program up to a rotation or XOR of ranks is stored as that one
  // program, so its file and each rank's load grow with one rank's work.
  plan.symmetry = findSymmetry(plan);
  return plan;
}

LogicalResult checkProgram(ProgramOp program) {
  const Plan plan = programToPlan(program);
  try {
    validatePlan(plan, "coll.program @" + program.getSymName().str());
  } catch (const PlanError &e) {
    return program.emitOpError() << "is not a valid plan: " << e.what();
  }
  // The plan the runtime will run, proven again after every level-3 stage.
  const VerifyResult proof = verifyPlan(plan);
  if (!proof.ok())
    return program.emitOpError() << "does not compute its collective: " << proof.describe(4);
  return success();
}

}  // namespace collplan
