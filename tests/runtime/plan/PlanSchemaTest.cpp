// The JSON Schemas in plans/schema parse and list the same required and known fields as the loaders.
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/JsonFieldNames.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

using nlohmann::json;
namespace names = collplan::json_fields;

namespace {

json loadSchema(const std::string &name) {
  std::ifstream in(std::string(COLLPLAN_SOURCE_DIR) + "/plans/schema/" + name);
  EXPECT_TRUE(in.good()) << name;
  return json::parse(in);  // throws (fails the test) if the schema is not JSON
}

template <size_t R, size_t O>
void expectSameFields(const json &schemaObject, const std::array<std::string_view, R> &required,
                      const std::array<std::string_view, O> &optional, const std::string &what) {
  SCOPED_TRACE(what);
  std::set<std::string> schemaRequired, loaderRequired(required.begin(), required.end());
  for (const auto &name : schemaObject.at("required")) schemaRequired.insert(name.get<std::string>());
  EXPECT_EQ(schemaRequired, loaderRequired);
  std::set<std::string> schemaKnown, loaderKnown(loaderRequired);
  loaderKnown.insert(optional.begin(), optional.end());
  for (const auto &item : schemaObject.at("properties").items()) schemaKnown.insert(item.key());
  EXPECT_EQ(schemaKnown, loaderKnown);
  EXPECT_EQ(schemaObject.at("additionalProperties"), false);
}

constexpr std::array<std::string_view, 0> kNone{};

}  // namespace

TEST(PlanSchema, PlanSchemaMatchesTheLoader) {
  json schema = loadSchema("plan.schema.json");
  EXPECT_EQ(schema.at("properties").at("format").at("const"), names::kPlanFormatName);
  EXPECT_EQ(schema.at("properties").at("version").at("const"), 2);
  expectSameFields(schema, names::kPlanRequired, names::kPlanOptional, "plan");
  expectSameFields(schema.at("properties").at("predicted"), names::kPredictedRequired, kNone,
                   "predicted");
  const json &symmetric = schema.at("properties").at("symmetric");
  expectSameFields(symmetric, names::kSymmetricRequired, names::kSymmetricOptional, "symmetric");
  expectSameFields(symmetric.at("properties").at("program"), names::kSymmetricProgramRequired,
                   kNone, "symmetric program");
  const json &composed = schema.at("properties").at("composed");
  expectSameFields(composed, names::kComposedRequired, kNone, "composed");
  expectSameFields(composed.at("properties").at("stages"), kNone, names::kComposedStages,
                   "composed stages");
  const json &defs = schema.at("$defs");
  expectSameFields(defs.at("program"), names::kProgramRequired, kNone, "program");
  expectSameFields(defs.at("channel"), names::kChannelRequired, kNone, "channel");
  expectSameFields(defs.at("op"), names::kOpRequired, names::kOpOptional, "op");
  expectSameFields(defs.at("opRef"), names::kOpRefRequired, kNone, "opRef");
}

TEST(PlanSchema, BundleSchemaMatchesTheLoader) {
  json schema = loadSchema("bundle.schema.json");
  EXPECT_EQ(schema.at("properties").at("format").at("const"), names::kBundleFormatName);
  EXPECT_EQ(schema.at("properties").at("version").at("const"), 2);
  expectSameFields(schema, names::kBundleRequired, names::kBundleOptional, "bundle");
  const json &defs = schema.at("$defs");
  expectSameFields(defs.at("table"), names::kTableRequired, names::kTableOptional, "table");
  expectSameFields(defs.at("bucket"), names::kBucketRequired, names::kBucketOptional, "bucket");
  expectSameFields(defs.at("candidate"), names::kCandidateRequired, kNone, "candidate");
  EXPECT_EQ(defs.at("u64").at("maximum").get<uint64_t>(), UINT64_MAX);
}

TEST(PlanSchema, DefaultsSchemaMatchesTheLoader) {
  json schema = loadSchema("defaults.schema.json");
  expectSameFields(schema, names::kDefaultsRequired, names::kDefaultsOptional, "defaults");
  const json &rule = schema.at("properties").at("rules").at("items");
  expectSameFields(rule, names::kRuleRequired, names::kRuleOptional, "rule");
  std::set<std::string> schemaPlans, builtIn;
  for (const auto &name : rule.at("properties").at("plan").at("enum"))
    schemaPlans.insert(name.get<std::string>());
  for (const collplan::BuiltInPlan &p : collplan::builtInPlans()) builtIn.insert(std::string(p.name));
  EXPECT_EQ(schemaPlans, builtIn);
}
