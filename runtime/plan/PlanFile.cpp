// loadPlanFile / savePlanFile: plan documents on disk.
#include "runtime/plan/Composition.h"
#include "runtime/plan/JsonFile.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/PlanValidate.h"

namespace collplan {

Plan loadPlanFile(const std::string &path, const PlanLoadOptions &options) {
  return planFromJson(readPlanDocument(path, options.onlyRank), path, options);
}

void savePlanFile(const Plan &plan, const std::string &path, DocumentEncoding encoding) {
  if (plan.onlyRank >= 0 && !buildableFromStages(plan))
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
