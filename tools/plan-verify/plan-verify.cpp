// plan-verify: loads plan and bundle files (JSON or CBOR) and proves every plan in them
// computes its collective (runtime/plan/PlanVerify.h); exit 1 when any file fails.
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/JsonFieldNames.h"
#include "runtime/plan/JsonFile.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/PlanVerify.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

using namespace collplan;

namespace {

/// What one file came to: how many plans it holds and every problem, paths from its root.
struct FileResult {
  std::string file;
  size_t plans = 0;
  std::vector<PlanProblem> problems;
};

void verifyInto(const Plan &plan, const std::string &prefix, FileResult &result) {
  ++result.plans;
  for (PlanProblem &p : verifyPlan(plan).problems)
    result.problems.push_back({prefix + p.path, std::move(p.message)});
}

FileResult verifyFile(const std::string &path) {
  FileResult result{path, 0, {}};
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

nlohmann::json toJson(const FileResult &r) {
  nlohmann::json problems = nlohmann::json::array();
  for (const PlanProblem &p : r.problems) problems.push_back({{"path", p.path}, {"message", p.message}});
  return {{"file", r.file}, {"ok", r.problems.empty()}, {"plans", r.plans}, {"problems", problems}};
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"plan-verify: prove that plan and bundle files compute their collectives "
               "(contributions of every output unit, bitwise-identical reductions, no read of "
               "unwritten scratch, barriers that wait for every rank)"};
  std::vector<std::string> files;
  bool json = false;
  app.add_option("files", files, "Plan or bundle files (JSON or CBOR)")->required();
  app.add_flag("--json", json, "Print the results as JSON");
  CLI11_PARSE(app, argc, argv);

  bool allOk = true;
  nlohmann::json out = nlohmann::json::array();
  for (const std::string &file : files) {
    const FileResult result = verifyFile(file);
    allOk = allOk && result.problems.empty();
    if (json) {
      out.push_back(toJson(result));
      continue;
    }
    if (result.problems.empty()) {
      std::cout << file << ": ok (" << result.plans << (result.plans == 1 ? " plan" : " plans")
                << " proven)\n";
      continue;
    }
    for (const PlanProblem &p : result.problems)  // a load error names the file itself
      std::cout << (p.path.empty() ? p.message : file + ": " + p.path + ": " + p.message) << "\n";
  }
  if (json) std::cout << out.dump(2) << "\n";
  return allOk ? 0 : 1;
}
