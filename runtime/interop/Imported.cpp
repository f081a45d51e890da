// proveImportedPlan: an imported plan validated and proven, its first problem as the error.
#include "runtime/interop/Imported.h"

#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/PlanVerify.h"

namespace collplan {

void proveImportedPlan(const Plan &plan, const std::string &origin) {
  validatePlan(plan, origin);
  const VerifyResult proof = verifyPlan(plan);
  if (proof.ok()) return;
  std::string reason = "does not compute its " + std::string(toString(plan.collective)) + ": " +
                       proof.problems.front().message;
  if (proof.problems.size() > 1)
    reason += " (and " + std::to_string(proof.problems.size() - 1) + " more problems)";
  throw PlanError(origin, proof.problems.front().path, reason);
}

}  // namespace collplan
