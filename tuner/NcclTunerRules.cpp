// ncclTunerRules: a tuning's bucket winners mapped to NCCL's algorithms, as plugin rules.
#include "tuner/NcclTunerRules.h"

#include "compiler/lowering/Algorithms.h"
#include "runtime/nccltuner/NcclChoices.h"

#include <set>

namespace collplan::tune {
namespace {

/// The collectives NCCL asks its tuner about.
bool ncclTunes(CollectiveKind kind) {
  return kind == CollectiveKind::AllReduce || kind == CollectiveKind::AllGather ||
         kind == CollectiveKind::ReduceScatter || kind == CollectiveKind::Broadcast ||
         kind == CollectiveKind::Reduce;
}

/// The rule for one bucket of `table`, or null where its winner has no NCCL counterpart.
nlohmann::json bucketRule(const TuneResult &result, const TableResult &table,
                          const BucketChoice &bucket) {
  if (bucket.winner < 0) return nullptr;
  const CompiledVariant &winner = table.variants[size_t(bucket.winner)];
  const AlgorithmInfo *algorithm = findAlgorithm(winner.variant.algorithm);
  if (!algorithm || algorithm->ncclAlgorithm.empty()) return nullptr;
  nlohmann::json rule = {{"collective", std::string(toString(table.benchCase.kind))},
                         {"min_bytes", bucket.minBytes}};
  if (bucket.maxBytes != UINT64_MAX) rule["max_bytes"] = bucket.maxBytes + 1;  // exclusive
  rule["ranks"] = result.ranks;
  rule["nodes"] = result.topology.numNodes();
  rule["algorithm"] = algorithm->ncclAlgorithm;
  rule["why"] = "plan-tune: " + winner.variant.label + " won " + table.name() + " on " +
                result.settings.backend + ", topology " + result.topology.name;
  return rule;
}

}  // namespace

nlohmann::json ncclTunerRules(const TuneResult &result) {
  nlohmann::json rules = nlohmann::json::array();
  std::set<CollectiveKind> done;
  for (const TableResult &table : result.tables) {
    const CollectiveKind kind = table.benchCase.kind;
    if (!ncclTunes(kind) || !done.insert(kind).second) continue;
    for (const BucketChoice &bucket : table.buckets) {
      nlohmann::json rule = bucketRule(result, table, bucket);
      if (!rule.is_null()) rules.push_back(std::move(rule));
    }
  }
  nlohmann::json doc = {
      {"format", std::string(nccltuner::kChoicesFormat)},
      {"version", nccltuner::kChoicesVersion},
      {"description", "plan-tune's winners on " + std::to_string(result.ranks) + " ranks (" +
                          result.settings.backend + ", topology " + result.topology.name +
                          ") where NCCL has the same algorithm; NCCL picks the protocol"},
      {"rules", std::move(rules)}};
  nccltuner::parseNcclChoices(doc.dump(), "the NCCL tuner rules");  // the plugin's own check
  return doc;
}

}  // namespace collplan::tune
