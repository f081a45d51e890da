// Composed plans: a hierarchical allreduce over nodes of L ranks built from proven plans of L
// and K ranks, each rank's program made from the stages' programs in time proportional to it.
#pragma once

#include "runtime/plan/Plan.h"

namespace collplan {

/// The stages of an allreduce over K nodes of L ranks each, rank r = k·L + l being local rank l
/// of node k:
///   1. `intraReduceScatter` (L ranks) inside each node: local rank l ends with block l of its
///      node's sum (the message in L blocks);
///   2. `interAllReduce` (K ranks) across the nodes, among the ranks of one local index: block
///      l summed over every node;
///   3. `intraAllGather` (L ranks) inside each node: every rank ends with every block.
/// Each stage is a plan of its own size, proven on its own; the composition computes the
/// allreduce whatever the stages' schedules (each block's sum is the inter-node fold of the
/// node sums), which the tests check by proving instantiated compositions.
struct HierarchicalStages {
  int ranksPerNode = 1;  ///< L
  Plan intraReduceScatter;
  Plan interAllReduce;
  Plan intraAllGather;
};

/// Throws std::invalid_argument naming the stage and the reason unless `stages` compose into an
/// allreduce of `ranks` ranks: ranks a multiple of L; each stage's collective and rank count (L,
/// K, L); every program of each stage present, or with `forRank` >= 0 the one that rank takes
/// (a stage plan loaded for that stage rank alone); one reduction op; the composed units and
/// scratch within the format's limits.
void checkHierarchicalStages(const HierarchicalStages &stages, int ranks, int forRank = -1);

/// The allreduce of `ranks` = K·L ranks the stages compose (checkHierarchicalStages first).
/// Rank r's program is stage 1's program of local rank l, stage 2's of node k and stage 3's of
/// local rank l, one after the other on each channel, with peers renamed to world ranks (a node
/// peer p is k·L + p, an inter-node peer q is q·L + l) and units rescaled to the composed unit
/// grid; each stage's first op on a channel waits (`after`) for the earlier stages' last op on
/// every other channel. Stage 1 writes block l to scratch region A, stage 2 reads A and writes
/// region B, stage 3 reads B; each stage's own scratch follows. A value keeps its position in
/// the message modulo the units (unit sizes differ by position when the count does not divide),
/// which holds for stage plans that keep a block's partial results in scratch units of that
/// block, as the built-in plans do; validatePlan refuses a composition of others. With
/// `onlyRank` >= 0 only that rank's program is built (Plan::onlyRank), in time proportional to
/// it, and the stage plans need only the programs it takes.
Plan composeHierarchicalAllReduce(const HierarchicalStages &stages, int ranks, int onlyRank = -1);

}  // namespace collplan
