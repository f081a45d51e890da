// verifyPlanFile: load a plan or bundle file for its structure, then prove each plan in it.
#include "runtime/plan/VerifyFile.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/JsonFieldNames.h"
#include "runtime/plan/JsonFile.h"
#include "runtime/plan/Composition.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/PlanValidate.h"

#include <optional>

namespace collplan {
namespace {

/// The first plan's first fold tree of one table, which every other reduced unit must match.
struct OrderReference {
  std::string planPath;
  ReductionOrder order;
  bool set = false;
};

void checkSameOrder(const std::string &planPath, const std::vector<ReductionOrder> &orders,
                    OrderReference &reference, FileVerification &result) {
  for (const ReductionOrder &order : orders) {
    if (!reference.set) {
      reference = {planPath, order, true};
      continue;
    }
    if (order.tree == reference.order.tree) continue;
    const std::string where = reference.planPath.empty() ? "" : reference.planPath + " ";
    result.problems.push_back(
        {planPath, "out[" + std::to_string(order.unit) + "] of rank " +
                       std::to_string(order.rank) + " folds " + abbreviatedTree(order.tree) +
                       " but " + where + "out[" + std::to_string(reference.order.unit) +
                       "] of rank " + std::to_string(reference.order.rank) + " folds " +
                       abbreviatedTree(reference.order.tree) +
                       ": not one reduction order (results differ by message size or position)"});
    return;  // the first difference of each plan
  }
}

void verifyInto(const Plan &plan, const std::string &planPath, const VerifyFileOptions &options,
                OrderReference &reference, FileVerification &result) {
  ++result.plans;
  std::vector<ReductionOrder> orders;
  const bool wantOrders = options.orders || options.sameOrder;
  const std::string prefix = planPath.empty() ? "" : planPath + ".";
  for (PlanProblem &p : verifyPlan(plan, wantOrders ? &orders : nullptr).problems)
    result.problems.push_back({prefix + p.path, std::move(p.message)});
  if (options.sameOrder) checkSameOrder(planPath, orders, reference, result);
  if (options.orders) result.orders.push_back({planPath, std::move(orders)});
}

/// The stage plans of `document` when it is a composed plan whose programs, built for every
/// rank, would span more than the proof's limit (an allgather's or reduce-scatter's rank copies
/// every block: N² over all ranks); nothing otherwise.
std::optional<HierarchicalStages> stagesPastTheProofLimit(const nlohmann::json &document,
                                                          const std::string &path) {
  if (!document.is_object() || !document.contains("composed")) return std::nullopt;
  PlanLoadOptions structureOnly;
  structureOnly.verify = false;
  HierarchicalStages stages = composedStagesFromJson(document, path, structureOnly);
  if (composedProgramSize(stages, document.at("ranks").get<int>()).units <=
      PlanLoadOptions{}.maxProofUnits)
    return std::nullopt;
  return stages;
}

/// A composed plan too large to build whole: each stage proven at its own size, and the
/// programs of the first and last ranks of the first and last nodes built from them and
/// validated. That the construction computes the collective from proven stages is proven by
/// instantiating it (CompositionTest).
void verifyComposedStages(const HierarchicalStages &stages, int ranks, const std::string &path,
                          FileVerification &result) {
  ++result.plans;
  const std::vector<StageRole> &roles = composedStages(stages.collective);
  for (size_t s = 0; s < roles.size(); ++s)
    for (PlanProblem &p : verifyPlan(stages.plans[s]).problems)
      result.problems.push_back(
          {"composed.stages." + std::string(stageKey(roles[s])) + "." + p.path,
           std::move(p.message)});
  for (int rank : sampledRanks(stages, ranks)) {
    try {
      validatePlan(composeHierarchical(stages, ranks, rank), path);
    } catch (const std::exception &e) {
      result.problems.push_back({"composed", "rank " + std::to_string(rank) + ": " + e.what()});
    }
  }
}

}  // namespace

FileVerification verifyPlanFile(const std::string &path, const VerifyFileOptions &options) {
  FileVerification result{path, 0, {}, {}};
  PlanLoadOptions structureOnly;  // the proof runs below, listing every problem
  structureOnly.verify = false;
  try {
    // Read once; the format field says whether it is a bundle or a plan.
    const nlohmann::json document = readPlanDocument(path);
    const auto format = document.is_object() ? document.find("format") : document.end();
    if (format != document.end() && *format == json_fields::kBundleFormatName) {
      const Bundle bundle = bundleFromJson(document, path, {}, structureOnly);
      for (size_t t = 0; t < bundle.tables.size(); ++t) {
        OrderReference reference;  // one per table: its collective and rank count
        for (size_t b = 0; b < bundle.tables[t].buckets.size(); ++b)
          verifyInto(bundle.tables[t].buckets[b].plan,
                     "tables[" + std::to_string(t) + "].buckets[" + std::to_string(b) + "].plan",
                     options, reference, result);
      }
    } else if (std::optional<HierarchicalStages> stages =
                   stagesPastTheProofLimit(document, path)) {
      verifyComposedStages(*stages, document.at("ranks").get<int>(), path, result);
    } else {
      OrderReference reference;
      verifyInto(planFromJson(document, path, structureOnly), "", options, reference, result);
    }
  } catch (const std::exception &e) {  // unreadable, not a plan, or structurally invalid
    result.problems.push_back({"", e.what()});
  }
  return result;
}

FileVerification verifyPlanOf(const std::string &file, const Plan &plan,
                              const VerifyFileOptions &options) {
  FileVerification result{file, 0, {}, {}};
  OrderReference reference;
  verifyInto(plan, "", options, reference, result);
  return result;
}

}  // namespace collplan
