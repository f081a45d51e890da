// The default rules: which built-in plan serves a call no tuned bundle covers, by collective,
// message size and rank count; data (plans/defaults.json, compiled into the runtime), not code.
#pragma once

#include "runtime/core/Text.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/Plan.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace collplan {

/// One rule: `plan` serves `collective` from `minBytes`, `minRanks` and `minNodes` on (and only
/// on powers of two of ranks when `powerOfTwoRanks`).
struct DefaultRule {
  CollectiveKind collective = CollectiveKind::AllReduce;
  const BuiltInPlan *plan = nullptr;
  uint64_t minBytes = 0;
  int minRanks = 1;
  /// The machines (nodes) the job's ranks span: a job across nodes sends over the network,
  /// where other plans win than between the ranks of one machine.
  int minNodes = 1;
  /// Only rank counts that are powers of two: recursive doubling and halving fold the others
  /// (an extra message of the whole data for the folded pairs), which changes where they win.
  bool powerOfTwoRanks = false;
  /// Whether the rule's conditions admit a call of `bytes` on `ranks` ranks over `nodes` nodes.
  bool admits(CollectiveKind kind, int ranks, int nodes, uint64_t bytes) const {
    return collective == kind && minBytes <= bytes && minRanks <= std::max(ranks, 1) &&
           minNodes <= std::max(nodes, 1) && (!powerOfTwoRanks || isPowerOfTwo(ranks));
  }
  /// Whether the rule admits every call of its collective.
  bool unconditional() const {
    return minBytes == 0 && minRanks == 1 && minNodes == 1 && !powerOfTwoRanks;
  }
};

/// A rank-independent bundle: per collective, built-in plans by size, rank and node count. Of the rules of a
/// collective whose minimums a call reaches, the last one listed serves it; every collective has
/// a rule without minimums, so every call has a plan.
class DefaultRules {
public:
  /// Reads a "collplan-defaults" document; throws PlanError naming `origin`, the field and the
  /// reason (an unknown collective or plan, a plan that does not serve its collective, a
  /// collective without a rule that applies to every call, ...).
  static DefaultRules parse(const nlohmann::json &doc, const std::string &origin);

  /// The built-in plan for a call of `bytes` on `ranks` ranks over `nodes` nodes.
  const BuiltInPlan &planFor(CollectiveKind kind, int ranks, uint64_t bytes, int nodes = 1) const;
  /// The bucket table these rules give calls of `kind` on `ranks` ranks (with `op` and `root`):
  /// a bucket from each rule's min_bytes on, holding its plan. What a communicator and plan-bench
  /// look plans up in when no bundle covers a call, exactly as in a tuned bundle's table.
  /// With `onlyRank` >= 0 the plans hold that rank's program alone (what one rank runs);
  /// `nodes`: the machines the ranks span.
  BucketTable table(CollectiveKind kind, DType dtype, std::optional<ReduceOp> op, int ranks,
                    int root, int onlyRank = -1, int nodes = 1) const;
  /// At most how many ops the whole plans of table(kind, ..., ranks, ...) have (BuiltInPlan::
  /// maxOps), known before building them.
  uint64_t tableMaxOps(CollectiveKind kind, int ranks, int nodes = 1) const;
  const std::vector<DefaultRule> &rules() const { return rules_; }

private:
  /// A bucket of a table before its plan is built.
  struct BucketChoice {
    uint64_t minBytes = 0, maxBytes = 0;
    const BuiltInPlan *plan = nullptr;
  };
  /// The buckets of table(kind, ..., ranks, ...), consecutive ones with one plan merged.
  std::vector<BucketChoice> bucketChoices(CollectiveKind kind, int ranks, int nodes) const;

  std::vector<DefaultRule> rules_;
};

/// The rules of plans/defaults.json as this runtime was built with them (parsed once).
const DefaultRules &defaultRules();

}  // namespace collplan
