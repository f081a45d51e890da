// DefaultRules: parsing and checking a collplan-defaults document, and the lookups over it.
#include "runtime/plan/DefaultRules.h"

#include "runtime/plan/JsonFieldNames.h"
#include "runtime/plan/JsonFields.h"

#include <algorithm>
#include <array>
#include <limits>

namespace collplan {

/// plans/defaults.json's text (generated into the build: DefaultRulesText.cpp.in).
extern const char *const kDefaultRulesJson;

namespace {

using namespace json_access;
namespace names = json_fields;

std::string plansServing(CollectiveKind kind) {
  std::string out;
  for (const BuiltInPlan &p : builtInPlans())
    if (p.serves(kind)) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

DefaultRule parseRule(const json &value, const std::string &origin, const FieldPath &path) {
  checkObject(value, Where{origin, path}, names::kRuleRequired, names::kRuleOptional);
  DefaultRule rule;
  const std::string kind = expectString(value["collective"], Where{origin, path / "collective"});
  const std::optional<CollectiveKind> parsed = parseCollectiveKind(kind);
  if (!parsed)
    throwPlanError(origin, path / "collective",
                   "unknown collective \"" + kind + "\" (expected one of: " +
                       collectiveKindNames() + ")");
  rule.collective = *parsed;
  const std::string name = expectString(value["plan"], Where{origin, path / "plan"});
  rule.plan = findBuiltInPlan(name, rule.collective);
  if (!rule.plan)
    throwPlanError(origin, path / "plan",
                   "\"" + name + "\" is not a built-in plan for " + kind +
                       " (expected one of: " + plansServing(rule.collective) + ")");
  if (const json *v = member(value, "min_bytes"))
    rule.minBytes = expectUnsigned64(*v, Where{origin, path / "min_bytes"});
  if (const json *v = member(value, "min_ranks"))
    rule.minRanks = int(expectInteger(*v, Where{origin, path / "min_ranks"}, 1, 1 << 20));
  if (const json *v = member(value, "min_nodes"))
    rule.minNodes = int(expectInteger(*v, Where{origin, path / "min_nodes"}, 1, 1 << 20));
  if (const json *v = member(value, "power_of_two_ranks"))
    rule.powerOfTwoRanks = expectBool(*v, Where{origin, path / "power_of_two_ranks"});
  if (const json *v = member(value, "why")) expectString(*v, Where{origin, path / "why"});
  return rule;
}

}  // namespace

DefaultRules DefaultRules::parse(const json &doc, const std::string &origin) {
  const FieldPath root;
  checkObject(doc, Where{origin, root}, names::kDefaultsRequired, names::kDefaultsOptional);
  if (expectString(doc["format"], Where{origin, root / "format"}) != names::kDefaultsFormatName)
    throwPlanError(origin, root / "format",
                   "expected \"" + std::string(names::kDefaultsFormatName) + "\"");
  const int64_t version = expectInteger(doc["version"], Where{origin, root / "version"}, 0, 1 << 20);
  if (version != 1)
    throwPlanError(origin, root / "version",
                   "unsupported version " + std::to_string(version) + " (this runtime reads 1)");
  if (const json *d = member(doc, "description")) expectString(*d, Where{origin, root / "description"});
  DefaultRules out;
  const FieldPath rulesPath = root / "rules";
  const json &rules = expectArray(doc["rules"], Where{origin, rulesPath});
  for (size_t i = 0; i < rules.size(); ++i)
    out.rules_.push_back(parseRule(rules[i], origin, rulesPath[i]));
  for (int k = 0; k < kNumCollectiveKinds; ++k) {
    const CollectiveKind kind = CollectiveKind(k);
    const bool covered = std::any_of(out.rules_.begin(), out.rules_.end(), [&](const DefaultRule &r) {
      return r.collective == kind && r.unconditional();
    });
    if (!covered)
      throwPlanError(origin, rulesPath,
                     std::string("no rule serves every ") + std::string(toString(kind)) +
                         " call: give one without min_bytes, min_ranks, min_nodes and "
                         "power_of_two_ranks");
  }
  return out;
}

const BuiltInPlan &DefaultRules::planFor(CollectiveKind kind, int ranks, uint64_t bytes,
                                         int nodes) const {
  const BuiltInPlan *plan = nullptr;
  for (const DefaultRule &r : rules_)
    if (r.admits(kind, ranks, nodes, bytes)) plan = r.plan;
  return *plan;  // parse() checked that a rule without minimums serves every call
}

std::vector<DefaultRules::BucketChoice> DefaultRules::bucketChoices(CollectiveKind kind, int ranks,
                                                                    int nodes) const {
  std::vector<uint64_t> starts = {0};
  for (const DefaultRule &r : rules_)
    if (r.admits(kind, ranks, nodes, std::numeric_limits<uint64_t>::max()))
      starts.push_back(r.minBytes);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<BucketChoice> choices;
  for (size_t i = 0; i < starts.size(); ++i) {
    const uint64_t maxBytes =
        i + 1 < starts.size() ? starts[i + 1] - 1 : std::numeric_limits<uint64_t>::max();
    const BuiltInPlan *plan = &planFor(kind, ranks, starts[i], nodes);
    if (!choices.empty() && choices.back().plan == plan)
      choices.back().maxBytes = maxBytes;
    else
      choices.push_back({starts[i], maxBytes, plan});
  }
  return choices;
}

BucketTable DefaultRules::table(CollectiveKind kind, DType dtype, std::optional<ReduceOp> op,
                                int ranks, int root, int onlyRank, int nodes) const {
  BucketTable table;
  table.collective = kind;
  table.dtype = dtype;
  table.op = op;
  for (const BucketChoice &choice : bucketChoices(kind, ranks, nodes)) {
    Bucket bucket;
    bucket.minBytes = choice.minBytes;
    bucket.maxBytes = choice.maxBytes;
    bucket.plan = choice.plan->make(kind, ranks, op.value_or(ReduceOp::Sum), root, onlyRank);
    bucket.winner.algorithm = std::string(choice.plan->name);
    table.buckets.push_back(std::move(bucket));
  }
  return table;
}

uint64_t DefaultRules::tableMaxOps(CollectiveKind kind, int ranks, int nodes) const {
  uint64_t ops = 0;
  for (const BucketChoice &choice : bucketChoices(kind, ranks, nodes))
    ops += choice.plan->maxOps(kind, ranks);
  return ops;
}

const DefaultRules &defaultRules() {
  static const DefaultRules rules =
      DefaultRules::parse(nlohmann::json::parse(kDefaultRulesJson), "plans/defaults.json (built in)");
  return rules;
}

}  // namespace collplan
