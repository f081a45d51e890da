// Composed plans: a hierarchical allreduce, allgather or reduce-scatter over nodes of L ranks
// built from proven plans of L and K ranks, each rank's program made from the stages' programs
// in time proportional to it.
#pragma once

#include "runtime/plan/Plan.h"

#include <optional>

#include <string_view>
#include <vector>

namespace collplan {

/// A stage of a composed plan: a collective over the L ranks of one node (intra) or over the K
/// ranks of one local index, one per node (inter).
enum class StageRole : uint8_t {
  IntraReduceScatter,
  InterAllReduce,
  InterAllGather,
  InterReduceScatter,
  IntraAllGather,
};

/// The stages that compose `collective`, in the order a rank runs them; empty for a collective
/// that does not compose. Rank r = k·L + l is local rank l of node k:
///   allreduce:      intra reduce-scatter (local rank l ends with block l of its node's sum),
///                   inter allreduce of that block, intra allgather of the L reduced blocks;
///   allgather:      inter allgather (the K blocks of local index l), intra allgather of those
///                   K-block groups, then local copies into node-major order;
///   reduce-scatter: local copies of the input into local-major order, intra reduce-scatter
///                   (local rank l ends with its node's sums of the K blocks of local index l),
///                   inter reduce-scatter of those K blocks.
/// Each composition computes its collective whatever the stages' schedules, which the tests
/// check by proving instantiated compositions.
const std::vector<StageRole> &composedStages(CollectiveKind collective);
CollectiveKind stageCollective(StageRole role);
/// True for the stages over the ranks of one local index, one per node.
bool stageAcrossNodes(StageRole role);
/// The stage's member of a composed plan file's "stages": "intra_reduce_scatter", ...
std::string_view stageKey(StageRole role);
/// "intra-node reduce-scatter", ...
std::string_view stageDescription(StageRole role);

/// The stage plans of a composed plan over nodes of `ranksPerNode` (L) consecutive ranks.
struct HierarchicalStages {
  CollectiveKind collective = CollectiveKind::AllReduce;
  int ranksPerNode = 1;
  /// One per composedStages(collective), in that order.
  std::vector<Plan> plans;

  const Plan &stage(StageRole role) const;
  Plan &stage(StageRole role);
};

/// The three stages of an allreduce (L = ranksPerNode).
HierarchicalStages allReduceStages(int ranksPerNode, Plan intraReduceScatter, Plan interAllReduce,
                                   Plan intraAllGather);
/// The two stages of an allgather.
HierarchicalStages allGatherStages(int ranksPerNode, Plan interAllGather, Plan intraAllGather);
/// The two stages of a reduce-scatter.
HierarchicalStages reduceScatterStages(int ranksPerNode, Plan intraReduceScatter,
                                       Plan interReduceScatter);

/// Throws std::invalid_argument naming the stage and the reason unless `stages` compose into
/// their collective over `ranks` ranks: a collective that composes, with one plan per stage;
/// ranks a multiple of L; each stage's collective and rank count (L or K); every program of
/// each stage present, or with `forRank` >= 0 the one that rank takes (a stage plan loaded for
/// that stage rank alone); one reduction op; the composed units and scratch within the format's
/// limits.
void checkHierarchicalStages(const HierarchicalStages &stages, int ranks, int forRank = -1);

/// The plan of `ranks` = K·L ranks the stages compose (checkHierarchicalStages first). Rank r's
/// program is its stages' programs (local rank l's of an intra stage, node k's of an inter
/// stage) one after the other on each channel, with peers renamed to world ranks (a node peer
/// p is k·L + p, an inter-node peer q is q·L + l) and units rescaled to the composed unit grid;
/// each stage's first op on a channel waits (`after`) for the earlier stages' last op on every
/// other channel. Stages hand their results over in scratch regions; allgather and
/// reduce-scatter add one copy per block (channel 0) between node-major and local-major order,
/// since a stage's ranges are contiguous in its own order. A value keeps its position modulo a
/// block's units (unit sizes differ by position when the count does not divide); for the
/// allreduce that needs intra-node plans that keep a block's partial results in scratch units
/// of that block, as the built-in plans do, and validatePlan refuses a composition of others.
/// With `onlyRank` >= 0 only that rank's program is built (Plan::onlyRank), in time
/// proportional to it, and the stage plans need only the programs it takes.
Plan composeHierarchical(const HierarchicalStages &stages, int ranks, int onlyRank = -1);

/// True when `plan` is composed and its stages hold every stage rank's program, so every rank's
/// program can be built from them (and its file written from them) even when `programs` holds
/// rank 0's alone (a plan the compiler kept for one rank, Plan::onlyRank).
bool buildableFromStages(const Plan &plan);

/// What every rank's program of the composed plan would hold, computed from the stages without
/// building it: ops, and units as the loaders' size guards count them (PlanJsonRead's
/// programUnits). The loaders and the compiler refuse or sample past their limits.
struct ComposedSize {
  uint64_t ops = 0, units = 0;
};
ComposedSize composedProgramSize(const HierarchicalStages &stages, int ranks);

/// The ranks whose programs stand for a composed plan too large to build whole: the first and
/// last local ranks of the first and last nodes.
std::vector<int> sampledRanks(const HierarchicalStages &stages, int ranks);

}  // namespace collplan
