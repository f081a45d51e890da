// bundleToJson: the snake_case JSON form of a bundle.
#include "runtime/plan/BundleJson.h"

#include "runtime/plan/JsonFieldNames.h"
#include "runtime/plan/PlanJson.h"

namespace collplan {

using nlohmann::json;

static json candidateToJson(const BucketCandidate &c) {
  return json{{"algorithm", c.algorithm},
              {"measured_us", c.measuredUs},
              {"predicted_us", c.predictedUs}};
}

json bundleToJson(const Bundle &bundle) {
  json out = json::object();
  out["format"] = json_fields::kBundleFormatName;
  out["version"] = bundle.formatVersion;
  out["topology_fingerprint"] = bundle.topologyFingerprint;
  out["backend"] = bundle.backend;
  if (bundle.topology.is_object()) out["topology"] = bundle.topology;
  out["ranks"] = bundle.ranks;
  if (!bundle.toolVersion.empty()) out["tool_version"] = bundle.toolVersion;
  if (!bundle.tunerSettings.is_null() && !bundle.tunerSettings.empty())
    out["tuner"] = bundle.tunerSettings;
  json tables = json::array();
  for (const BucketTable &table : bundle.tables) {
    json t = json::object();
    t["collective"] = toString(table.collective);
    t["dtype"] = toString(table.dtype);
    if (table.op) t["op"] = toString(*table.op);
    json buckets = json::array();
    for (const Bucket &bucket : table.buckets) {
      json b = json::object();
      b["min_bytes"] = bucket.minBytes;
      b["max_bytes"] = bucket.maxBytes;
      b["plan"] = planToJson(bucket.plan);
      b["winner"] = candidateToJson(bucket.winner);
      if (bucket.runnerUp) b["runner_up"] = candidateToJson(*bucket.runnerUp);
      buckets.push_back(std::move(b));
    }
    t["buckets"] = std::move(buckets);
    tables.push_back(std::move(t));
  }
  out["tables"] = std::move(tables);
  return out;
}

}  // namespace collplan
