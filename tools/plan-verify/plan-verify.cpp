// plan-verify: loads plan and bundle files (JSON or CBOR) and proves every plan in them
// computes its collective (runtime/plan/PlanVerify.h); exit 1 when any file fails.
#include "runtime/plan/VerifyFile.h"
#include "tools/CommandLine.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <nlohmann/json.hpp>

#include <iostream>

using namespace collplan;

namespace {

nlohmann::json toJson(const FileVerification &r) {
  nlohmann::json problems = nlohmann::json::array();
  for (const PlanProblem &p : r.problems) problems.push_back({{"path", p.path}, {"message", p.message}});
  return {{"file", r.file}, {"ok", r.ok()}, {"plans", r.plans}, {"problems", problems}};
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
  if (const std::optional<int> exit = tools::parseCommandLine(app, argc, argv)) return *exit;

  bool allOk = true;
  nlohmann::json out = nlohmann::json::array();
  for (const std::string &file : files) {
    const FileVerification result = verifyPlanFile(file);
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
