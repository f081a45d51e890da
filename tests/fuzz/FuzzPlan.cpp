// libFuzzer target: plan files (JSON or CBOR) through loadPlanFile, whole and for one rank.
#include "ScratchFile.h"

#include "runtime/plan/PlanJson.h"

using namespace collplan;

namespace {

/// The proof's budget while fuzzing: the default admits proofs of seconds in a Release build,
/// which under ASan and coverage take minutes and would read as hangs. Inputs over it still
/// go through parsing, validation and the budget check itself.
constexpr uint64_t kFuzzProofUnits = 1 << 16;

PlanLoadOptions whole() {
  PlanLoadOptions options;
  options.maxProofUnits = kFuzzProofUnits;
  return options;
}

PlanLoadOptions forRank(int rank) {
  PlanLoadOptions options = whole();
  options.onlyRank = rank;
  return options;
}

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
      loadPlanFile(path, forRank(rank));
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
    plan = loadPlanFile(path, whole());
  } catch (const PlanError &) {
    // Rejected whole; the one-rank reader (which skips other ranks' channels) must reject it
    // cleanly too, or accept it when the fault lies in a skipped program.
    try {
      loadPlanFile(path, forRank(0));
    } catch (const PlanError &) {
    }
    return 0;
  }
  checkValidPlan(path, plan);
  return 0;
}
