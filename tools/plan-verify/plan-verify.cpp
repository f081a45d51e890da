// plan-verify: loads plan and bundle files (JSON or CBOR), MSCCL XML algorithms and MSCCL++
// execution plans, and proves every plan in them computes its collective
// (runtime/plan/PlanVerify.h); exit 1 when any fails.
#include "runtime/interop/MscclXml.h"
#include "runtime/interop/MscclppJson.h"
#include "runtime/plan/VerifyFile.h"
#include "tools/CommandLine.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string_view>
#include <nlohmann/json.hpp>

#include <iostream>

using namespace collplan;

namespace {

bool endsWith(const std::string &file, std::string_view suffix) {
  return file.size() >= suffix.size() &&
         file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// MSCCL XML by `.xml`, MSCCL++ by `.mscclpp.json`, plan and bundle files otherwise.
FileVerification verifyFile(const std::string &file, const VerifyFileOptions &options) {
  if (endsWith(file, ".xml")) return verifyMscclXmlFile(file, options);
  if (endsWith(file, ".mscclpp.json")) return verifyMscclppJsonFile(file, options);
  return verifyPlanFile(file, options);
}

nlohmann::json toJson(const FileVerification &r) {
  nlohmann::json problems = nlohmann::json::array();
  for (const PlanProblem &p : r.problems) problems.push_back({{"path", p.path}, {"message", p.message}});
  nlohmann::json out = {{"file", r.file}, {"ok", r.ok()}, {"plans", r.plans}, {"problems", problems}};
  for (const FileVerification::PlanOrders &plan : r.orders) {
    nlohmann::json trees = nlohmann::json::array();
    for (const ReductionOrder &o : plan.orders)
      trees.push_back({{"tree", o.tree}, {"rank", o.rank}, {"unit", o.unit}});
    out["orders"].push_back({{"plan", plan.path}, {"trees", trees}});
  }
  return out;
}

/// "tables[0].buckets[1].plan: 2 fold orders" and the trees, one per line.
void printOrders(const FileVerification &r) {
  for (const FileVerification::PlanOrders &plan : r.orders) {
    const std::string name = plan.path.empty() ? r.file : r.file + ": " + plan.path;
    std::cout << name << ": " << plan.orders.size()
              << (plan.orders.size() == 1 ? " fold order" : " fold orders") << "\n";
    for (const ReductionOrder &o : plan.orders)
      std::cout << "  " << o.tree << "  (first at out[" << o.unit << "] of rank " << o.rank
                << ")\n";
  }
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"plan-verify: prove that plan and bundle files compute their collectives "
               "(contributions of every output unit, bitwise-identical reductions, no read of "
               "unwritten scratch, barriers that wait for every rank)"};
  std::vector<std::string> files;
  bool json = false;
  VerifyFileOptions options;
  app.add_option("files", files,
                 "Plan or bundle files (JSON or CBOR), MSCCL XML algorithms (.xml), or MSCCL++ "
                 "execution plans (.mscclpp.json)")
      ->required();
  app.add_flag("--json", json, "Print the results as JSON");
  app.add_flag("--orders", options.orders,
               "List each plan's reduction orders: the fold tree over ranks of its reduced "
               "output units, e.g. ((0+1)+(2+3))");
  app.add_flag("--same-order", options.sameOrder,
               "Also require one reduction order for every reduced output unit of every plan "
               "of a table, so results do not depend on the message size; names the first "
               "plan, unit and rank that differ");
  if (const std::optional<int> exit = tools::parseCommandLine(app, argc, argv)) return *exit;

  bool allOk = true;
  nlohmann::json out = nlohmann::json::array();
  for (const std::string &file : files) {
    const FileVerification result = verifyFile(file, options);
    allOk = allOk && result.problems.empty();
    if (json) {
      out.push_back(toJson(result));
      continue;
    }
    printOrders(result);
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
