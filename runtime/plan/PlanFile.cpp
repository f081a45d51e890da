// loadPlanFile / savePlanFile: plan documents on disk.
#include "runtime/plan/JsonFile.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/PlanValidate.h"

namespace collplan {

Plan loadPlanFile(const std::string &path, const PlanLoadOptions &options) {
  return planFromJson(readPlanDocument(path, options.onlyRank), path, options);
}

namespace {

/// True for a composed plan whose stage plans hold every program: its file stores the stages,
/// so it is complete even when the plan built one rank's program alone (a plan too large to
/// build for every rank, compileComposedPlan).
bool storesWholeStages(const Plan &plan) {
  if (!plan.composition) return false;
  for (const Plan &stage : plan.composition->plans)
    if (stage.onlyRank >= 0) return false;
  return true;
}

}  // namespace

void savePlanFile(const Plan &plan, const std::string &path, DocumentEncoding encoding) {
  if (plan.onlyRank >= 0 && !storesWholeStages(plan))
    throw PlanError(path, "programs",
                    "holds only the program of rank " + std::to_string(plan.onlyRank) +
                        " (loaded for one rank): a plan file needs every rank's program");
  validatePlan(plan, path);
  writePlanDocument(planToJson(plan), path, encoding);
}

void savePlanFile(const Plan &plan, const std::string &path) {
  savePlanFile(plan, path, encodingForPath(path));
}

}  // namespace collplan
