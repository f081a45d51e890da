// bundleFromJson: parses a bundle document (each plan via planFromJsonAt), then checks tables and buckets.
#include "runtime/plan/BundleJson.h"

#include "runtime/core/Limits.h"

#include "runtime/plan/BundleValidate.h"
#include "runtime/plan/JsonFieldNames.h"
#include "runtime/plan/JsonFields.h"
#include "runtime/plan/JsonFile.h"
#include "runtime/plan/PlanJson.h"

#include <cmath>
#include <limits>

namespace collplan {

using nlohmann::json;
using namespace json_access;
namespace names = json_fields;

namespace {

constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();

struct BundleReader {
  const std::string &origin;

  Where at(const FieldPath &path) const { return Where{origin, path}; }

  double nonNegative(const json &value, const FieldPath &path) const {
    double v = expectNumber(value, at(path));
    if (!(v >= 0) || !std::isfinite(v)) at(path).fail("must be a finite number >= 0");
    return v;
  }

  BucketCandidate candidate(const json &value, const FieldPath &path) const {
    checkObject(value, at(path), names::kCandidateRequired, std::array<std::string_view, 0>{});
    BucketCandidate c;
    c.algorithm = expectString(value["algorithm"], at(path / "algorithm"));
    if (c.algorithm.empty()) at(path / "algorithm").fail("must not be empty");
    c.measuredUs = nonNegative(value["measured_us"], path / "measured_us");
    c.predictedUs = nonNegative(value["predicted_us"], path / "predicted_us");
    return c;
  }

  Bucket bucket(const json &value, const FieldPath &path, const PlanLoadOptions &options) const {
    checkObject(value, at(path), names::kBucketRequired, names::kBucketOptional);
    Bucket b;
    b.minBytes = expectUnsigned64(value["min_bytes"], at(path / "min_bytes"));
    b.maxBytes = expectUnsigned64(value["max_bytes"], at(path / "max_bytes"));
    b.plan = planFromJsonAt(value["plan"], origin, path / "plan", options);
    b.winner = candidate(value["winner"], path / "winner");
    if (const json *v = member(value, "runner_up")) b.runnerUp = candidate(*v, path / "runner_up");
    return b;
  }

  BucketTable table(const json &value, const FieldPath &path,
                    const PlanLoadOptions &options) const {
    checkObject(value, at(path), names::kTableRequired, names::kTableOptional);
    BucketTable t;
    std::string kindName = expectString(value["collective"], at(path / "collective"));
    auto kind = parseCollectiveKind(kindName);
    if (!kind)
      at(path / "collective")
          .fail("unknown collective \"" + kindName + "\" (expected one of: " +
                collectiveKindNames() + ")");
    t.collective = *kind;
    std::string dtypeName = expectString(value["dtype"], at(path / "dtype"));
    auto dtype = parseDType(dtypeName);
    if (!dtype)
      at(path / "dtype")
          .fail("unknown dtype \"" + dtypeName + "\" (expected one of: " + dtypeNames() + ")");
    t.dtype = *dtype;
    if (const json *v = member(value, "op")) {
      std::string opName = expectString(*v, at(path / "op"));
      t.op = parseReduceOp(opName);
      if (!t.op)
        at(path / "op").fail("unknown reduction op \"" + opName + "\" (expected one of: " +
                             reduceOpNames() + ")");
    }
    FieldPath bucketsPath = path / "buckets";
    const json &buckets = expectArray(value["buckets"], at(bucketsPath));
    t.buckets.reserve(buckets.size());
    for (size_t b = 0; b < buckets.size(); ++b)
      t.buckets.push_back(bucket(buckets[b], bucketsPath[b], options));
    return t;
  }

  std::string nonEmptyString(const json &value, const FieldPath &path) const {
    std::string s = expectString(value, at(path));
    if (s.empty()) at(path).fail("must not be empty");
    return s;
  }

  Bundle bundle(const json &doc, const BundleExpectations &expectations,
                const PlanLoadOptions &options) const {
    FieldPath root;
    checkObject(doc, at(root), names::kBundleRequired, names::kBundleOptional);
    Bundle bundle;
    std::string format = expectString(doc["format"], at(root / "format"));
    if (format != names::kBundleFormatName)
      at(root / "format")
          .fail("expected \"" + std::string(names::kBundleFormatName) + "\", got \"" + format +
                '"');
    bundle.formatVersion =
        int(expectInteger(doc["version"], at(root / "version"), -kMaxI32, kMaxI32));
    if (bundle.formatVersion != kBundleFormatVersion)
      at(root / "version")
          .fail(oldVersionReason("bundle", bundle.formatVersion, kBundleFormatVersion));
    bundle.topologyFingerprint =
        nonEmptyString(doc["topology_fingerprint"], root / "topology_fingerprint");
    bundle.backend = nonEmptyString(doc["backend"], root / "backend");
    bundle.ranks = int(expectInteger(doc["ranks"], at(root / "ranks"), -kMaxI32, kMaxI32));
    if (bundle.ranks < 1)
      at(root / "ranks").fail("must be at least 1, got " + std::to_string(bundle.ranks));
    if (bundle.ranks > kMaxRanks)
      at(root / "ranks").fail(aboveLimit("ranks", bundle.ranks, kMaxRanks));
    if (const json *v = member(doc, "tool_version"))
      bundle.toolVersion = expectString(*v, at(root / "tool_version"));
    if (const json *v = member(doc, "tuner")) {
      if (!v->is_object()) at(root / "tuner").fail("expected an object, got " + describeType(*v));
      bundle.tunerSettings = *v;
    }
    if (const json *v = member(doc, "topology")) {
      if (!v->is_object())
        at(root / "topology").fail("expected a topology object, got " + describeType(*v));
      bundle.topology = *v;
    }
    // A bundle for another machine is the likeliest mistake: say so before parsing every plan.
    checkBundleExpectations(bundle, origin, expectations);

    FieldPath tablesPath = root / "tables";
    const json &tables = expectArray(doc["tables"], at(tablesPath));
    bundle.tables.reserve(tables.size());
    for (size_t t = 0; t < tables.size(); ++t)
      bundle.tables.push_back(table(tables[t], tablesPath[t], options));
    checkBundleTables(bundle, origin, /*validatePlans=*/false);  // plans were validated above
    return bundle;
  }
};

}  // namespace

Bundle bundleFromJson(const json &doc, const std::string &origin,
                      const BundleExpectations &expectations, const PlanLoadOptions &options) {
  return BundleReader{origin}.bundle(doc, expectations, options);
}

}  // namespace collplan
