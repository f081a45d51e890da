// planToJson: the snake_case JSON form of a plan, omitting empty fields; symmetric plans as rank
// 0's program, composed plans as their stage plans.
#include "runtime/plan/PlanJson.h"

#include "runtime/plan/BufRefText.h"
#include "runtime/plan/Composition.h"
#include "runtime/plan/JsonFieldNames.h"
#include "runtime/plan/Symmetry.h"

namespace collplan {

using nlohmann::json;

static json refsToJson(const std::vector<BufRef> &refs) {
  json out = json::array();
  for (const BufRef &ref : refs) out.push_back(formatBufRef(ref));
  return out;
}

static json opRefsToJson(const std::vector<OpRef> &refs) {
  json out = json::array();
  for (const OpRef &ref : refs) out.push_back(json{{"channel", ref.channel}, {"op", ref.op}});
  return out;
}

json planOpToJson(const PlanOp &op) {
  json out = json::object();
  out["op"] = toString(op.kind);
  if (!op.srcs.empty()) out["src"] = refsToJson(op.srcs);
  if (op.recv) out["recv"] = *op.recv;
  if (op.recv && op.recvPos != 0) out["recv_pos"] = op.recvPos;
  if (!op.dsts.empty()) out["dst"] = refsToJson(op.dsts);
  if (!op.sends.empty()) out["send"] = op.sends;
  if (!op.after.empty()) out["after"] = opRefsToJson(op.after);
  if (op.step >= 0) out["step"] = op.step;
  return out;
}

static json channelsToJson(const RankProgram &program) {
  json channels = json::array();
  for (const Channel &channel : program.channels) {
    json ops = json::array();
    for (const PlanOp &op : channel.ops) ops.push_back(planOpToJson(op));
    channels.push_back(json{{"ops", std::move(ops)}});
  }
  return channels;
}

json planToJson(const Plan &plan) {
  json out = json::object();
  out["format"] = json_fields::kPlanFormatName;
  out["version"] = plan.formatVersion;
  out["collective"] = toString(plan.collective);
  out["ranks"] = plan.ranks;
  if (plan.op) out["op"] = toString(*plan.op);
  if (needsRoot(plan.collective)) out["root"] = plan.root;
  out["algorithm"] = plan.algorithm;
  if (!plan.params.is_null() && !plan.params.empty()) out["params"] = plan.params;
  out["units"] = plan.units;
  if (plan.scratchUnits) out["scratch_units"] = plan.scratchUnits;
  if (plan.inplaceSafe) out["inplace_safe"] = true;
  if (plan.rankOrderReductions) out["reduction_order"] = json_fields::kRankReductionOrder;
  out["predicted"] = json{{"alpha_rounds", plan.predicted.alphaRounds},
                          {"beta", plan.predicted.beta}};
  if (plan.composition) {
    const HierarchicalStages &stages = *plan.composition;
    json stageDocs = json::object();
    const std::vector<StageRole> &roles = composedStages(stages.collective);
    for (size_t s = 0; s < roles.size(); ++s)
      stageDocs[std::string(stageKey(roles[s]))] = planToJson(stages.plans[s]);
    out["composed"] = json{{"ranks_per_node", stages.ranksPerNode}, {"stages", stageDocs}};
    return out;
  }
  if (plan.symmetry) {
    json symmetric{{"group", toString(plan.symmetry->group)},
                   {"stride", plan.symmetry->stride},
                   {"program", json{{"channels", channelsToJson(plan.programs.at(0))}}}};
    if (!plan.symmetry->rankOrderedReceives.empty())
      symmetric["rank_ordered_receives"] = opRefsToJson(plan.symmetry->rankOrderedReceives);
    out["symmetric"] = std::move(symmetric);
    return out;
  }
  json programs = json::array();
  for (size_t rank = 0; rank < plan.programs.size(); ++rank)
    programs.push_back(json{{"rank", rank}, {"channels", channelsToJson(plan.programs[rank])}});
  out["programs"] = std::move(programs);
  return out;
}

}  // namespace collplan
