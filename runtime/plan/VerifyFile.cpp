// verifyPlanFile: load a plan or bundle file for its structure, then prove each plan in it.
#include "runtime/plan/VerifyFile.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/JsonFieldNames.h"
#include "runtime/plan/JsonFile.h"
#include "runtime/plan/PlanJson.h"

namespace collplan {
namespace {

void verifyInto(const Plan &plan, const std::string &prefix, FileVerification &result) {
  ++result.plans;
  for (PlanProblem &p : verifyPlan(plan).problems)
    result.problems.push_back({prefix + p.path, std::move(p.message)});
}

}  // namespace

FileVerification verifyPlanFile(const std::string &path) {
  FileVerification result{path, 0, {}};
  PlanLoadOptions structureOnly;  // the proof runs below, listing every problem
  structureOnly.verify = false;
  try {
    // Read once; the format field says whether it is a bundle or a plan.
    const nlohmann::json document = readPlanDocument(path);
    const auto format = document.is_object() ? document.find("format") : document.end();
    if (format != document.end() && *format == json_fields::kBundleFormatName) {
      const Bundle bundle = bundleFromJson(document, path, {}, structureOnly);
      for (size_t t = 0; t < bundle.tables.size(); ++t)
        for (size_t b = 0; b < bundle.tables[t].buckets.size(); ++b)
          verifyInto(bundle.tables[t].buckets[b].plan,
                     "tables[" + std::to_string(t) + "].buckets[" + std::to_string(b) + "].plan.",
                     result);
    } else {
      verifyInto(planFromJson(document, path, structureOnly), "", result);
    }
  } catch (const std::exception &e) {  // unreadable, not a plan, or structurally invalid
    result.problems.push_back({"", e.what()});
  }
  return result;
}

}  // namespace collplan
