// planToJson: the snake_case JSON form of a plan, omitting empty fields.
#include "runtime/plan/PlanJson.h"

#include "runtime/plan/BufRefText.h"
#include "runtime/plan/JsonFieldNames.h"

namespace collplan {

using nlohmann::json;

static json endpointToJson(const Endpoint &e) { return json{{"peer", e.peer}, {"id", e.id}}; }

static json refsToJson(const std::vector<BufRef> &refs) {
  json out = json::array();
  for (const BufRef &ref : refs) out.push_back(formatBufRef(ref));
  return out;
}

static json opToJson(const PlanOp &op) {
  json out = json::object();
  out["op"] = toString(op.kind);
  if (!op.srcs.empty()) out["src"] = refsToJson(op.srcs);
  if (op.recv) out["recv"] = endpointToJson(*op.recv);
  if (op.recv && op.recvPos != 0) out["recv_pos"] = op.recvPos;
  if (!op.dsts.empty()) out["dst"] = refsToJson(op.dsts);
  if (!op.sends.empty()) {
    json sends = json::array();
    for (const Endpoint &e : op.sends) sends.push_back(endpointToJson(e));
    out["send"] = std::move(sends);
  }
  if (op.step >= 0) out["step"] = op.step;
  return out;
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
  out["predicted"] = json{{"alpha_rounds", plan.predicted.alphaRounds},
                          {"beta", plan.predicted.beta}};
  json programs = json::array();
  for (size_t rank = 0; rank < plan.programs.size(); ++rank) {
    json ops = json::array();
    for (const PlanOp &op : plan.programs[rank].ops) ops.push_back(opToJson(op));
    programs.push_back(json{{"rank", rank}, {"ops", std::move(ops)}});
  }
  out["programs"] = std::move(programs);
  return out;
}

}  // namespace collplan
