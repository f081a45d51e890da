// What every importer of another library's format does last: validate and prove the plan.
#pragma once

#include "runtime/plan/Plan.h"

#include <string>

namespace collplan {

/// Validates `plan` (validatePlan) and proves it (verifyPlan); throws PlanError naming `origin`
/// and the first problem's op ("does not compute its allreduce: ...", with a count of the
/// others).
void proveImportedPlan(const Plan &plan, const std::string &origin);

}  // namespace collplan
