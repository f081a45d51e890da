// loadPlanFile / savePlanFile: plan documents on disk.
#include "runtime/plan/JsonFile.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/PlanValidate.h"

namespace collplan {

Plan loadPlanFile(const std::string &path) { return planFromJson(readJsonFile(path), path); }

void savePlanFile(const Plan &plan, const std::string &path) {
  validatePlan(plan, path);
  writeJsonFile(planToJson(plan), path);
}

}  // namespace collplan
