// verifyPlanFile: load a plan or bundle file for its structure, then prove each plan in it.
#include "runtime/plan/VerifyFile.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/JsonFieldNames.h"
#include "runtime/plan/JsonFile.h"
#include "runtime/plan/PlanJson.h"

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
