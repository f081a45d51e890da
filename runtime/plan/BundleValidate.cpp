// Bucket coverage, table uniqueness, plan/table agreement and expectation checks of bundles.
#include "runtime/plan/BundleValidate.h"

#include "runtime/plan/JsonFile.h"
#include "runtime/plan/PlanValidate.h"

#include <limits>

namespace collplan {
namespace {

constexpr uint64_t kMaxBytes = std::numeric_limits<uint64_t>::max();

std::string tableName(const BucketTable &t) {
  std::string out = "(" + std::string(toString(t.collective)) + ", " +
                    std::string(toString(t.dtype));
  if (t.op) out += ", " + std::string(toString(*t.op));
  return out + ")";
}

std::string opName(const std::optional<ReduceOp> &op) {
  return op ? std::string(toString(*op)) : std::string("none");
}

void checkBuckets(const Bundle &bundle, const BucketTable &table, const std::string &origin,
                  const FieldPath &tablePath, bool validatePlans) {
  FieldPath bucketsPath = tablePath / "buckets";
  if (table.buckets.empty()) throwPlanError(origin, bucketsPath, "must hold at least one bucket");
  for (size_t b = 0; b < table.buckets.size(); ++b) {
    const Bucket &bucket = table.buckets[b];
    FieldPath bucketPath = bucketsPath[b];
    if (bucket.minBytes > bucket.maxBytes)
      throwPlanError(origin, bucketPath / "max_bytes",
                     "bucket is empty: max_bytes " + std::to_string(bucket.maxBytes) +
                         " < min_bytes " + std::to_string(bucket.minBytes));
    if (b == 0 && bucket.minBytes != 0)
      throwPlanError(origin, bucketPath / "min_bytes",
                     "gap: the first bucket must start at 0, got " +
                         std::to_string(bucket.minBytes));
    if (b > 0) {
      const Bucket &prev = table.buckets[b - 1];
      const std::string prevRange =
          "[" + std::to_string(prev.minBytes) + ", " + std::to_string(prev.maxBytes) + "]";
      if (prev.maxBytes == kMaxBytes || bucket.minBytes <= prev.maxBytes)
        throwPlanError(origin, bucketPath / "min_bytes",
                       "overlap: bucket starts at " + std::to_string(bucket.minBytes) +
                           " inside the previous bucket " + prevRange +
                           " (buckets must be sorted and disjoint)");
      if (bucket.minBytes != prev.maxBytes + 1)
        throwPlanError(origin, bucketPath / "min_bytes",
                       "gap: sizes " + std::to_string(prev.maxBytes + 1) + ".." +
                           std::to_string(bucket.minBytes - 1) +
                           " are not covered (previous bucket is " + prevRange + ")");
    }
    if (b + 1 == table.buckets.size() && bucket.maxBytes != kMaxBytes)
      throwPlanError(origin, bucketPath / "max_bytes",
                     "gap: the last bucket must end at 18446744073709551615 (UINT64_MAX), got " +
                         std::to_string(bucket.maxBytes));

    const Plan &plan = bucket.plan;
    FieldPath planPath = bucketPath / "plan";
    if (plan.collective != table.collective)
      throwPlanError(origin, planPath / "collective",
                     "plan is " + std::string(toString(plan.collective)) + " but its table is " +
                         std::string(toString(table.collective)));
    if (plan.op != table.op)
      throwPlanError(origin, planPath / "op",
                     "plan op is " + opName(plan.op) + " but its table's op is " +
                         opName(table.op));
    if (plan.ranks != bundle.ranks)
      throwPlanError(origin, planPath / "ranks",
                     "plan has " + std::to_string(plan.ranks) + " ranks but the bundle has " +
                         std::to_string(bundle.ranks));
    if (validatePlans) validatePlanAt(plan, origin, planPath);
  }
}

}  // namespace

void checkBundleExpectations(const Bundle &bundle, const std::string &origin,
                             const BundleExpectations &expect) {
  if (expect.ranks && *expect.ranks != bundle.ranks)
    throw PlanError(origin, "ranks",
                    "rank count mismatch: the bundle was tuned for " +
                        std::to_string(bundle.ranks) + " ranks but " +
                        std::to_string(*expect.ranks) + " were expected");
  if (expect.fingerprint && *expect.fingerprint != bundle.topologyFingerprint)
    throw PlanError(origin, "topology_fingerprint",
                    "topology fingerprint mismatch: the bundle was tuned for topology \"" +
                        bundle.topologyFingerprint + "\" but this topology is \"" +
                        *expect.fingerprint + "\" (re-tune with plan-tune for this machine)");
  if (expect.backend && *expect.backend != bundle.backend)
    throw PlanError(origin, "backend",
                    "backend mismatch: the bundle was tuned for backend \"" + bundle.backend +
                        "\" but \"" + *expect.backend + "\" was expected");
}

void checkBundleTables(const Bundle &bundle, const std::string &origin, bool validatePlans) {
  FieldPath root;
  FieldPath tablesPath = root / "tables";
  for (size_t t = 0; t < bundle.tables.size(); ++t) {
    const BucketTable &table = bundle.tables[t];
    FieldPath tablePath = tablesPath[t];
    if (needsReduceOp(table.collective) && !table.op)
      throwPlanError(origin, tablePath / "op",
                     "missing required field: " + std::string(toString(table.collective)) +
                         " tables need a reduction op");
    if (!needsReduceOp(table.collective) && table.op)
      throwPlanError(origin, tablePath / "op",
                     std::string(toString(table.collective)) + " does not reduce; remove the op");
    for (size_t u = 0; u < t; ++u) {
      const BucketTable &other = bundle.tables[u];
      if (other.collective == table.collective && other.dtype == table.dtype &&
          other.op == table.op)
        throwPlanError(origin, tablePath,
                       "duplicate table for " + tableName(table) + ", already defined by tables[" +
                           std::to_string(u) + "]");
    }
    checkBuckets(bundle, table, origin, tablePath, validatePlans);
  }
}

void validateBundle(const Bundle &bundle, const std::string &origin,
                    const BundleExpectations &expectations) {
  if (bundle.formatVersion != kBundleFormatVersion)
    throw PlanError(origin, "version",
                    oldVersionReason("bundle", bundle.formatVersion, kBundleFormatVersion));
  if (bundle.ranks < 1)
    throw PlanError(origin, "ranks", "must be at least 1, got " + std::to_string(bundle.ranks));
  if (bundle.topologyFingerprint.empty())
    throw PlanError(origin, "topology_fingerprint", "must not be empty");
  if (bundle.backend.empty()) throw PlanError(origin, "backend", "must not be empty");
  checkBundleExpectations(bundle, origin, expectations);
  checkBundleTables(bundle, origin, /*validatePlans=*/true);
}

}  // namespace collplan
