// PlanVerify: proves that a plan computes its collective, by symbolic execution of its channels
// over the contents of every unit of every buffer.
#pragma once

#include "runtime/plan/Plan.h"

#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// One thing wrong with a plan: where (the JSON path of the op at fault,
/// "programs[1].channels[0].ops[3]", or of the rank's program when no op is) and why.
struct PlanProblem {
  std::string path;
  std::string message;
};

/// One way a plan folds its reduced output units: the tree over ranks ("((0+1)+(2+3))": leaves
/// are ranks, the unit index left out, operands in fold order), and the first output unit that
/// holds it.
struct ReductionOrder {
  std::string tree;
  int rank = 0;
  uint32_t unit = 0;
};

struct VerifyResult {
  std::vector<PlanProblem> problems;

  bool ok() const { return problems.empty(); }
  /// "programs[0].channels[0].ops[2]: out[1] of rank 0 lacks the contribution of in[1] of rank
  /// 2; ..." listing at most `limit` problems and how many more there are.
  std::string describe(size_t limit = 8) const;
};

/// Runs every channel of `plan` symbolically: every `in` unit holds its own contribution, a
/// reduction combines its operands' contributions in operand order (a left fold, as the executor
/// computes it), copies and transfers move them unchanged, and messages are matched per (sender,
/// receiver, channel) in order. Then checks:
///  - semantics: every output unit of every rank holds exactly the contributions its collective
///    specifies (allreduce, reduce-scatter, allgather, all-to-all, broadcast, reduce, gather,
///    scatter at the plan's root), none missing, repeated or foreign;
///  - determinism: every copy of a reduced output unit was folded by the same tree in the same
///    operand order, so all ranks' results are bitwise identical;
///  - initialisation: no op reads a `tmp` or `out` unit that nothing wrote before it;
///  - channel hazards: two ops of different channels of a rank that touch one unit, one of them
///    writing it, are ordered by program order and `after`;
///  - a barrier lets no rank finish before every rank has arrived (each rank's ops depend,
///    through messages, on every other rank's);
///  - a plan marked with reduction_order "rank" folds every reduced output unit in rank order;
///  - in-place aliasing: a plan marked inplace_safe never reads an `in` unit after (or possibly
///    at the same time as) overwriting the `out` unit it shares in an in-place call.
/// Messages carry the value their op computed (copy semantics; backends post in place only
/// ranges nothing overwrites later), so a plan may reuse a range it sent from.
/// Requires a plan validatePlan accepts (shapes, ranges, matching, deadlock freedom) with every
/// rank's program (Plan::onlyRank < 0). Time and memory grow with the total ops × units moved
/// plus the distinct partial reductions.
/// `tree` cut to `limit` characters ("..." added), for messages.
std::string abbreviatedTree(const std::string &tree, size_t limit = 72);

/// The fold tree over ranks of a left fold in rank order: "(((0+1)+2)+3)" for 4 ranks.
std::string rankOrderTree(int ranks);

/// With `orders`, also lists the distinct fold trees of the proven reduced output units (one
/// entry per tree; empty for kinds that do not reduce).
VerifyResult verifyPlan(const Plan &plan, std::vector<ReductionOrder> *orders = nullptr);

/// Marks `plan` as folding every reduction in rank order (Plan::rankOrderReductions) and proves
/// it. Nothing when the proof holds (or the plan reduces nothing); else the mark is cleared and
/// the reason returned: "ring does not reduce in rank order: programs[1]...: ...".
std::optional<std::string> markRankOrder(Plan &plan);

/// Where `bundle` breaks the fixed reduction order: the first plan of a reducing table that is
/// not marked rank-order, as "tables[0].buckets[2].plan (allreduce f32 sum, ring)"; nothing when
/// every such plan is marked (and so, proven at load, folds every element in rank order, so the
/// bundle's results do not depend on the bucket a call lands in).
std::optional<std::string> firstPlanOutOfRankOrder(const Bundle &bundle);

}  // namespace collplan
