// libFuzzer target: plan files (JSON or CBOR) through loadPlanFile, whole and for one rank.
#include "FuzzLoadOptions.h"
#include "ScratchFile.h"

#include "runtime/plan/PlanJson.h"

using namespace collplan;

namespace {

/// A plan that loaded must load again for each rank alone and survive a write/read round trip
/// unchanged; anything else is a bug of the reader or the writer.
void checkValidPlan(const std::string &path, const Plan &plan) {
  const nlohmann::json written = planToJson(plan);
  PlanLoadOptions trusted;
  trusted.verify = false;  // the same content was just proven
  Plan back;
  try {
    back = planFromJson(written, "round trip", trusted);
  } catch (const PlanError &e) {
    fuzz::fail(std::string("a loaded plan does not read back after planToJson: ") + e.what());
  }
  if (planToJson(back) != written) fuzz::fail("the round trip of a loaded plan changed it");
  for (int rank : {0, plan.ranks - 1}) {
    try {
      loadPlanFile(path, fuzz::loadOptions(rank));
    } catch (const PlanError &e) {
      fuzz::fail("a plan that loads whole fails for rank " + std::to_string(rank) + ": " +
                 e.what());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = fuzz::writeScratchFile(data, size);
  Plan plan;
  try {
    plan = loadPlanFile(path, fuzz::loadOptions());
  } catch (const PlanError &) {
    // Rejected whole; the one-rank reader (which skips other ranks' channels) must reject it
    // cleanly too, or accept it when the fault lies in a skipped program.
    try {
      loadPlanFile(path, fuzz::loadOptions(0));
    } catch (const PlanError &) {
    }
    return 0;
  }
  checkValidPlan(path, plan);
  return 0;
}
