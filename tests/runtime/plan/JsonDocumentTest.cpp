// Documents that nest too deeply (JSON and CBOR, in plans, bundles and topologies) are refused
// with an error, never a crash; a channel of a million ops loads in linear time.
#include "PlanTestUtil.h"
#include "tests/runtime/plan/ManyOpsPlan.h"

#include "runtime/core/JsonDocument.h"
#include "runtime/topology/Topology.h"
#include "runtime/topology/TopologyError.h"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

using namespace collplan;
using namespace collplan::testing;

namespace {

std::string scratchPath(const std::string &name) {
  return "/tmp/collplan-json-" + std::to_string(getpid()) + "-" + name;
}

std::string nestedArrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

/// A plan document whose `params` holds `depth` nested arrays.
std::string planWithDeepParams(size_t depth) {
  nlohmann::json plan = planToJson(allGatherPlan2());
  plan["params"] = nlohmann::json::object({{"x", 0}});
  std::string text = plan.dump();
  const std::string slot = "\"x\":0";
  text.replace(text.find(slot), slot.size(), "\"x\":" + nestedArrays(depth));
  return text;
}

TEST(JsonDocument, NestingIsBoundedInJsonAndCbor) {
  EXPECT_NO_THROW(parseJsonDocument(nestedArrays(kMaxJsonDepth), false));
  EXPECT_THROW(parseJsonDocument(nestedArrays(kMaxJsonDepth + 1), false), JsonSyntaxError);
  const std::string cbor(2000000, char(0x81));  // arrays of one element, two million deep
  try {
    parseJsonDocument(cbor, true);
    FAIL() << "accepted";
  } catch (const JsonSyntaxError &e) {
    EXPECT_STREQ(e.what(), "not valid CBOR: arrays and objects nest deeper than 64 levels (no "
                           "collplan document nests more than 20)");
  }
}

/// Loading crashed (SIGSEGV) on such files in every loader: plan-verify, plan-view, plan-bench,
/// the ranks of a C API job, collplan.load_plan.
TEST(JsonDocument, ADeepPlanOrBundleIsAnError) {
  const std::string plan = scratchPath("deep.plan.json");
  std::ofstream(plan) << planWithDeepParams(400000);
  expectPlanError([&] { loadPlanFile(plan); }, "", "nest deeper than 64 levels");
  expectPlanError([&] { loadPlanFile(plan, {0}); }, "", "nest deeper than 64 levels");
  const std::string cbor = scratchPath("deep.bundle.cbor");
  std::ofstream(cbor) << char(0xa1) << char(0x68) << "topology" << std::string(1000000, char(0x81));
  expectPlanError([&] { loadBundleFile(cbor); }, "", "not valid CBOR: arrays and objects nest");
  std::remove(plan.c_str());
  std::remove(cbor.c_str());
}

TEST(JsonDocument, ADeepTopologyIsAnError) {
  const std::string path = scratchPath("deep.topology.json");
  std::ofstream(path) << "{\"name\": " << nestedArrays(500000) << "}";
  try {
    loadTopologyFile(path);
    FAIL() << "accepted";
  } catch (const TopologyError &e) {
    EXPECT_NE(std::string(e.what()).find(path + ": not valid JSON: arrays and objects nest"),
              std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

TEST(JsonDocument, AFilterLeavesMembersOut) {
  const JsonMemberFilter noB = [](const std::vector<JsonStep> &path, const std::string &key) {
    return !(key == "b" && path.size() == 3 && path[2].inArray && path[2].index == 1);
  };
  const nlohmann::json doc =
      parseJsonDocument(R"({"l": [{"a": 1, "b": [[2]]}, {"a": 3, "b": {"c": [4]}}]})", false, noB);
  EXPECT_EQ(doc, nlohmann::json::parse(R"({"l": [{"a": 1, "b": [[2]]}, {"a": 3}]})"));
}

/// nlohmann's callback parser scanned a channel's ops after each op it read: a million-op
/// plan took 286 s to load. Run with its own time limit (tests/runtime/plan/CMakeLists.txt).
TEST(JsonDocument, DISABLED_AMillionOpChannelLoadsInLinearTime) {
  const std::string path = scratchPath("million.plan.json");
  std::ofstream(path) << test::broadcastOfManyOps(1000000);
  EXPECT_EQ(loadPlanFile(path, structureOnly()).programs[1].channels[0].ops.size(), 1000000u);
  PlanLoadOptions one = structureOnly();
  one.onlyRank = 1;
  EXPECT_EQ(loadPlanFile(path, one).programs[1].channels[0].ops.size(), 1000000u);
  std::remove(path.c_str());
}

}  // namespace
