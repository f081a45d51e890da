// Loading the plans a benchmark runs: plan files, bundles (bucket lookup) and built-in plans.
#include "tuner/measure/PlanSource.h"

#include "runtime/core/Files.h"
#include "runtime/core/JsonDocument.h"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/DefaultRules.h"
#include "runtime/plan/PlanJson.h"
#include "tuner/measure/MemoryCheck.h"

#include <fstream>
#include <stdexcept>

namespace collplan::measure {
namespace {

/// The "format" member of a JSON file, or "" when it cannot be read.
std::string fileFormat(const std::string &path) {
  std::string text;
  try {
    text = readWholeFile(path);
  } catch (const FileError &) {
    return "";
  }
  nlohmann::json j;
  try {
    j = parseJsonDocument(text, /*cbor=*/false);
  } catch (const JsonSyntaxError &) {
    return "";
  }
  if (j.is_object() && j.contains("format") && j["format"].is_string())
    return j["format"].get<std::string>();
  return "";
}

}  // namespace

Plan loadPlanFileForTool(const std::string &path, const PlanLoadOptions &options) {
  try {
    return loadPlanFile(path, options);
  } catch (const PlanError &e) {
    if (fileFormat(path) == "collplan-bundle")
      throw std::invalid_argument(std::string(e.what()) + " (this is a bundle: use --bundle)");
    throw;
  }
}

Bundle loadBundleFileForTool(const std::string &path, const PlanLoadOptions &options) {
  try {
    return loadBundleFile(path, {}, options);
  } catch (const PlanError &e) {
    if (fileFormat(path) == "collplan-plan")
      throw std::invalid_argument(std::string(e.what()) + " (this is a plan file: use --plan)");
    throw;
  }
}

void checkPlanFitsCase(const Plan &plan, const std::string &origin, const BenchCase &c) {
  auto fail = [&](const std::string &reason) {
    throw std::invalid_argument(origin + ": " + reason);
  };
  if (plan.collective != c.kind)
    fail("the plan is for " + std::string(toString(plan.collective)) + " but --collective is " +
         std::string(toString(c.kind)));
  if (plan.ranks != c.ranks)
    fail("the plan has " + std::to_string(plan.ranks) + " ranks but --ranks is " +
         std::to_string(c.ranks));
  if (needsReduceOp(c.kind) && plan.op && *plan.op != c.op)
    fail("the plan reduces with " + std::string(toString(*plan.op)) + " but --op is " +
         std::string(toString(c.op)));
  if (needsRoot(c.kind) && plan.root != c.root)
    fail("the plan's root is " + std::to_string(plan.root) + " but --root is " +
         std::to_string(c.root));
}

PlanSource PlanSource::fromPlan(Plan plan, const std::string &origin, const BenchCase &c) {
  checkPlanFitsCase(plan, origin, c);
  PlanSource s;
  s.single_ = std::make_shared<const Plan>(std::move(plan));
  s.label_ = origin;
  return s;
}

PlanSource PlanSource::fromPlanFile(const std::string &path, const BenchCase &c) {
  return fromPlan(loadPlanFileForTool(path), path, c);
}

PlanSource PlanSource::fromBundleFile(const std::string &path, const BenchCase &c) {
  return fromBundle(std::make_shared<const Bundle>(loadBundleFileForTool(path)), path, c);
}

PlanSource PlanSource::fromBundle(std::shared_ptr<const Bundle> bundle, const std::string &path,
                                  const BenchCase &c) {
  if (bundle->ranks != c.ranks)
    throw std::invalid_argument(path + ": ranks: the bundle was tuned for " +
                                std::to_string(bundle->ranks) + " ranks but --ranks is " +
                                std::to_string(c.ranks));
  const BucketTable *table = bundle->find(c.kind, c.dtype, c.op);
  if (!table) {
    std::string have;
    for (const BucketTable &t : bundle->tables) {
      have += have.empty() ? "" : ", ";
      have += std::string(toString(t.collective)) + " " + std::string(toString(t.dtype));
      if (t.op) have += " " + std::string(toString(*t.op));
    }
    std::string want = std::string(toString(c.kind)) + " " + std::string(toString(c.dtype));
    if (needsReduceOp(c.kind)) want += " " + std::string(toString(c.op));
    throw std::invalid_argument(path + ": tables: the bundle has no table for " + want +
                                " (it has: " + (have.empty() ? "none" : have) + ")");
  }
  for (const Bucket &b : table->buckets) checkPlanFitsCase(b.plan, path, c);
  PlanSource s;
  s.bundle_ = std::move(bundle);
  s.table_ = table;
  s.label_ = path;
  return s;
}

PlanSource PlanSource::builtIn(const BenchCase &c, int nodes) {
  std::optional<ReduceOp> op;
  if (needsReduceOp(c.kind)) op = c.op;
  if (needsRoot(c.kind) && (c.root < 0 || c.root >= c.ranks))
    throw std::invalid_argument("--root " + std::to_string(c.root) + " is out of range for " +
                                std::to_string(c.ranks) + " ranks");
  const uint64_t maxOps = defaultRules().tableMaxOps(c.kind, c.ranks, nodes);
  requireMemory(double(maxOps) * double(kPlanBytesPerOp + kPreparedBytesPerOp),
                "the built-in plans for " + std::string(toString(c.kind)) + " on " +
                    std::to_string(c.ranks) + " ranks (" + std::to_string(maxOps) +
                    " ops) and the ranks' prepared programs",
                "lower --ranks");
  auto bundle = std::make_shared<Bundle>();
  bundle->ranks = c.ranks;
  bundle->tables.push_back(defaultRules().table(c.kind, c.dtype, op, c.ranks, c.root, -1, nodes));
  PlanSource s;
  s.bundle_ = bundle;
  s.table_ = &bundle->tables.front();
  std::string names;
  for (const Bucket &b : s.table_->buckets)
    names += (names.empty() ? "" : ", ") + b.plan.algorithm;
  s.label_ = "built-in " + names + " (default rules)";
  return s;
}

uint64_t PlanSource::totalOps() const {
  auto opsOf = [](const Plan &plan) {
    uint64_t ops = 0;
    for (const RankProgram &program : plan.programs) ops += program.numOps();
    return ops;
  };
  if (single_) return opsOf(*single_);
  uint64_t ops = 0;
  for (const Bucket &bucket : table_->buckets) ops += opsOf(bucket.plan);
  return ops;
}

const Plan &PlanSource::planFor(uint64_t bytes) const {
  if (single_) return *single_;
  return table_->lookup(bytes).plan;
}

}  // namespace collplan::measure

namespace collplan::measure {

std::vector<std::string> bundleMismatches(const Bundle &bundle, std::string_view backend,
                                          const Topology *topology) {
  std::vector<std::string> out;
  if (bundle.backend != backend)
    out.push_back("it was tuned for backend " + bundle.backend + ", this run is on " +
                  std::string(backend));
  if (topology && topology->numRanks() != bundle.ranks)
    out.push_back("it was tuned for " + std::to_string(bundle.ranks) +
                  " ranks, this run's topology has " + std::to_string(topology->numRanks()));
  else if (topology && topology->fingerprint() != bundle.topologyFingerprint)
    out.push_back("it was tuned on topology " + bundle.topologyFingerprint +
                  ", this run is on " + topology->fingerprint());
  return out;
}

}  // namespace collplan::measure
