// buildBundle and writeBundle: the winners of every table as a validated plan bundle.
#include "tuner/phases/WriteBundle.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanVerify.h"

namespace collplan::tune {
namespace {

/// Variant v's measured and predicted time at the bucket's size.
BucketCandidate candidate(const TableResult &t, const BucketChoice &b, int v) {
  BucketCandidate c;
  c.algorithm = t.variants[size_t(v)].variant.label;
  c.measuredUs = t.measurements.byVariant[size_t(v)][b.sizeIndex].medianUs;
  c.predictedUs = t.measurements.predictedUs[size_t(v)][b.sizeIndex];
  return c;
}

BucketTable bucketTable(const TableResult &t) {
  BucketTable table;
  table.collective = t.benchCase.kind;
  table.dtype = t.benchCase.dtype;
  if (needsReduceOp(t.benchCase.kind)) table.op = t.benchCase.op;
  for (const BucketChoice &b : t.buckets) {
    Bucket bucket;
    bucket.minBytes = b.minBytes;
    bucket.maxBytes = b.maxBytes;
    bucket.plan = t.variants[size_t(b.winner)].plan;
    bucket.winner = candidate(t, b, b.winner);
    if (b.runnerUp >= 0) bucket.runnerUp = candidate(t, b, b.runnerUp);
    table.buckets.push_back(std::move(bucket));
  }
  return table;
}

/// The `tuner` member: the settings, the cost model and how the times were measured.
nlohmann::json tunerRecord(const TuneResult &result, const Measurer &measurer) {
  nlohmann::json j = result.settings.toJson();
  j["alpha_us"] = result.alphaBeta.alphaUs;
  j["bandwidth_gbps"] = result.alphaBeta.bytesPerUs / 1e3;
  j["cost_model"] = result.alphaBeta.source;
  j["partial"] = result.partial();
  j["warmup"] = measurer.warmup();
  j["max_batches"] = measurer.maxBatches();
  return j;
}

}  // namespace

std::optional<Bundle> buildBundle(const TuneResult &result, const Measurer &measurer) {
  Bundle bundle;
  bundle.topologyFingerprint = result.fingerprint;
  bundle.topology = topologyToJson(result.topology);
  bundle.backend = result.settings.backend;
  bundle.ranks = result.ranks;
  bundle.toolVersion = toolVersion();
  bundle.tunerSettings = tunerRecord(result, measurer);
  for (const TableResult &t : result.tables)
    if (!t.buckets.empty()) bundle.tables.push_back(bucketTable(t));
  if (bundle.tables.empty()) return std::nullopt;
  try {
    validateBundle(bundle, "plan-tune bundle");
  } catch (const PlanError &e) {
    throw TuneError(std::string("internal error: the tuned bundle does not validate: ") + e.what());
  }
  if (result.settings.fixedReductionOrder)
    if (std::optional<std::string> where = firstPlanOutOfRankOrder(bundle))
      throw TuneError("internal error: --fixed-reduction-order, but " + *where +
                      " is not marked rank-order");
  return bundle;
}

void writeBundle(const TuneResult &result, const std::string &path) {
  if (!result.bundle) throw TuneError("-o " + path + ": nothing was measured, no bundle to write");
  try {
    saveBundleFile(*result.bundle, path);
  } catch (const std::exception &e) {
    throw TuneError("-o " + path + ": " + e.what());
  }
}

}  // namespace collplan::tune
