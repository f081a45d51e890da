// composeHierarchicalAllReduce: a rank's program of a hierarchical allreduce from its stages'.
#include "runtime/plan/Composition.h"

#include "runtime/core/Limits.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

namespace collplan {
namespace {

enum class Stage { IntraReduceScatter, InterAllReduce, IntraAllGather };

const char *stageName(Stage s) {
  switch (s) {
  case Stage::IntraReduceScatter: return "intra-node reduce-scatter";
  case Stage::InterAllReduce: return "inter-node allreduce";
  case Stage::IntraAllGather: return "intra-node allgather";
  }
  return "stage";
}

[[noreturn]] void refuse(Stage s, const std::string &reason) {
  throw std::invalid_argument("hierarchical allreduce: the " + std::string(stageName(s)) + " " +
                              reason);
}

/// `neededRank`: the one stage rank whose program a one-rank composition takes (-1: all).
void checkStage(const Plan &plan, Stage s, CollectiveKind kind, int ranks, int neededRank) {
  if (plan.collective != kind)
    refuse(s, "is a plan for " + std::string(toString(plan.collective)) + ", not " +
                  std::string(toString(kind)));
  if (plan.ranks != ranks)
    refuse(s, "plan has " + std::to_string(plan.ranks) + " ranks where " +
                  std::to_string(ranks) + " run it");
  if (plan.programs.size() != size_t(plan.ranks))
    refuse(s, "plan has " + std::to_string(plan.programs.size()) + " programs for " +
                  std::to_string(plan.ranks) + " ranks");
  if (plan.onlyRank >= 0 && plan.onlyRank != neededRank)
    refuse(s, "plan must hold " +
                  (neededRank < 0 ? std::string("every rank's program")
                                  : "the program of its rank " + std::to_string(neededRank)) +
                  " (it was loaded for rank " + std::to_string(plan.onlyRank) + " alone)");
  if (plan.units == 0) refuse(s, "plan has no units");
}

/// Where the composed plan puts a stage's buffers: per buffer kind of the stage, the composed
/// buffer and the unit the stage's unit 0 lands on; `scale` composed units per stage unit.
struct StageLayout {
  BufferKind in, out, tmp;
  uint32_t inBase = 0, outBase = 0, tmpBase = 0;
  uint32_t scale = 1;
  /// Nonzero for the inter-node stage, whose whole message is one block of the composed one:
  /// its scratch units come in periods of its message's units, each period mapped to a slot
  /// of `tmpSlot` composed units, so a unit keeps its position in the message (a range never
  /// crosses a period: its phases are its source's).
  uint32_t tmpPeriod = 0, tmpSlot = 0;

  BufRef map(const BufRef &ref) const {
    switch (ref.buf) {
    case BufferKind::In: return {in, inBase + ref.offset * scale, ref.length * scale};
    case BufferKind::Out: return {out, outBase + ref.offset * scale, ref.length * scale};
    case BufferKind::Tmp:
      if (tmpPeriod == 0) return {tmp, tmpBase + ref.offset * scale, ref.length * scale};
      return {tmp,
              tmpBase + ref.offset / tmpPeriod * tmpSlot + ref.offset % tmpPeriod * scale,
              ref.length * scale};
    }
    return ref;
  }
};

/// The composed unit grid and the stages' places in it. A unit's size depends on its position
/// in the message (its phase: units differ by one element when the count does not divide), so
/// every value stays at its message position modulo `units`: block l of local rank l lives at
/// l * block in the scratch regions A and B; the inter-node stage's scratch is slots of
/// `units`, each holding its period at l * block; the intra-node stages' scratch starts at a
/// multiple of `units`, which keeps the phases of intra-node plans that hold a block's partial
/// results in scratch units of that block, as the built-in plans do.
struct Grid {
  int ranksPerNode = 1, nodes = 1;
  uint32_t units = 1, block = 1;  ///< the message's units, and one block's (units / L)
  uint32_t scratchUnits = 0;
  uint32_t scales[3] = {1, 1, 1};
  uint32_t regionA = 0, regionB = 0, stageTmp[3] = {0, 0, 0};
  uint32_t interUnits = 1;  ///< the inter-node plan's units

  /// Stage `s`'s layout on local rank `local`.
  StageLayout layout(int s, int local) const {
    const uint32_t mine = uint32_t(local) * block;
    switch (s) {
    case 0: return {BufferKind::In, BufferKind::Tmp, BufferKind::Tmp, 0, regionA + mine,
                    stageTmp[0], scales[0]};
    case 1: return {BufferKind::Tmp, BufferKind::Tmp, BufferKind::Tmp, regionA + mine,
                    regionB + mine, stageTmp[1] + mine, scales[1], interUnits, units};
    default: return {BufferKind::Tmp, BufferKind::Out, BufferKind::Tmp, regionB + mine, 0,
                     stageTmp[2], scales[2]};
    }
  }
};

uint64_t checkedUnits(uint64_t units, const char *what) {
  if (units > uint64_t(kMaxUnits))
    throw std::invalid_argument("hierarchical allreduce: its " + std::string(what) + " would be " +
                                std::to_string(units) + " units, above the limit of " +
                                std::to_string(kMaxUnits));
  return units;
}

Grid gridOf(const HierarchicalStages &stages, int ranks) {
  Grid g;
  g.ranksPerNode = stages.ranksPerNode;
  g.nodes = ranks / stages.ranksPerNode;
  const uint64_t L = uint64_t(g.ranksPerNode);
  const uint64_t rs = stages.intraReduceScatter.units, ar = stages.interAllReduce.units,
                 ag = stages.intraAllGather.units;
  const uint64_t units = checkedUnits(std::lcm(std::lcm(rs, ag), L * ar), "units");
  g.units = uint32_t(units);
  g.block = uint32_t(units / L);
  g.scales[0] = uint32_t(units / rs);
  g.scales[1] = uint32_t(units / (L * ar));
  g.scales[2] = uint32_t(units / ag);
  // Scratch: region A (stage 1's result), region B (stage 2's), then each stage's own, every
  // one starting at a multiple of the message's units.
  const Plan *plans[3] = {&stages.intraReduceScatter, &stages.interAllReduce,
                          &stages.intraAllGather};
  g.interUnits = uint32_t(ar);
  uint64_t next = 2 * units;
  for (int s = 0; s < 3; ++s) {
    g.stageTmp[s] = uint32_t(checkedUnits(next, "scratch"));
    const uint64_t scratch = plans[s]->scratchUnits;
    // The inter-node stage: one slot of the message's units per period of its own.
    const uint64_t used = s == 1 ? (scratch + ar - 1) / ar * units : scratch * g.scales[s];
    next += (used + units - 1) / units * units;
  }
  g.regionA = 0;
  g.regionB = g.units;
  g.scratchUnits = uint32_t(checkedUnits(next, "scratch"));
  return g;
}

/// Appends `stageProgram` (the program of the stage's rank) to `program`, renaming peers with
/// `worldRank` and buffers with `layout`. `lastOp` holds the last op index of each composed
/// channel so far; a channel's first op of this stage waits for every other channel's.
template <typename WorldRank>
void appendStage(RankProgram &program, const RankProgram &stageProgram, const StageLayout &layout,
                 WorldRank worldRank, int32_t stepOffset, std::vector<int64_t> &lastOp) {
  const size_t channels = stageProgram.channels.size();
  if (lastOp.size() < channels) lastOp.resize(channels, -1);
  const std::vector<int64_t> before = lastOp;  // the earlier stages' last ops
  std::vector<uint32_t> firstIndex(channels);
  for (size_t c = 0; c < channels; ++c)
    firstIndex[c] = uint32_t(program.channel(c).size());
  for (size_t c = 0; c < channels; ++c) {
    std::vector<PlanOp> &ops = program.channel(c);
    for (size_t i = 0; i < stageProgram.channels[c].ops.size(); ++i) {
      PlanOp op = stageProgram.channels[c].ops[i];
      for (BufRef &ref : op.srcs) ref = layout.map(ref);
      for (BufRef &ref : op.dsts) ref = layout.map(ref);
      if (op.recv) op.recv = worldRank(*op.recv);
      for (int32_t &peer : op.sends) peer = worldRank(peer);
      for (OpRef &ref : op.after) ref.op += firstIndex[ref.channel];
      if (i == 0)
        for (size_t other = 0; other < before.size(); ++other)
          if (other != c && before[other] >= 0)
            op.after.push_back({uint32_t(other), uint32_t(before[other])});
      if (op.step >= 0) op.step += stepOffset;
      ops.push_back(std::move(op));
    }
    if (!stageProgram.channels[c].ops.empty()) lastOp[c] = int64_t(ops.size()) - 1;
  }
}

int32_t lastStep(const RankProgram &program) {
  int32_t step = -1;
  for (const Channel &channel : program.channels)
    for (const PlanOp &op : channel.ops) step = std::max(step, op.step);
  return step;
}

RankProgram composedProgram(const HierarchicalStages &stages, const Grid &g, int rank) {
  const int L = g.ranksPerNode, node = rank / L, local = rank % L;
  RankProgram program;
  std::vector<int64_t> lastOp;
  auto inNode = [&](int32_t peer) { return int32_t(node * L + peer); };
  auto acrossNodes = [&](int32_t peer) { return int32_t(peer * L + local); };
  const RankProgram &rs = stages.intraReduceScatter.programs[size_t(local)];
  const RankProgram &ar = stages.interAllReduce.programs[size_t(node)];
  const RankProgram &ag = stages.intraAllGather.programs[size_t(local)];
  appendStage(program, rs, g.layout(0, local), inNode, 0, lastOp);
  const int32_t arSteps = lastStep(rs) + 1;
  appendStage(program, ar, g.layout(1, local), acrossNodes, arSteps, lastOp);
  appendStage(program, ag, g.layout(2, local), inNode, arSteps + lastStep(ar) + 1, lastOp);
  return program;
}

}  // namespace

void checkHierarchicalStages(const HierarchicalStages &stages, int ranks, int forRank) {
  const int L = stages.ranksPerNode;
  if (L < 1 || ranks < 1 || ranks % L != 0)
    throw std::invalid_argument("hierarchical allreduce: " + std::to_string(ranks) +
                                " ranks do not make whole nodes of " + std::to_string(L) +
                                " ranks");
  const int local = forRank < 0 ? -1 : forRank % L, node = forRank < 0 ? -1 : forRank / L;
  checkStage(stages.intraReduceScatter, Stage::IntraReduceScatter, CollectiveKind::ReduceScatter,
             L, local);
  checkStage(stages.interAllReduce, Stage::InterAllReduce, CollectiveKind::AllReduce, ranks / L,
             node);
  checkStage(stages.intraAllGather, Stage::IntraAllGather, CollectiveKind::AllGather, L, local);
  if (stages.intraReduceScatter.op != stages.interAllReduce.op)
    refuse(Stage::InterAllReduce,
           "reduces with " +
               std::string(toString(stages.interAllReduce.op.value_or(ReduceOp::Sum))) +
               " but the intra-node reduce-scatter with " +
               std::string(toString(stages.intraReduceScatter.op.value_or(ReduceOp::Sum))));
  gridOf(stages, ranks);  // the units and scratch limits
}

Plan composeHierarchicalAllReduce(const HierarchicalStages &stages, int ranks, int onlyRank) {
  if (onlyRank < -1 || onlyRank >= ranks)
    throw std::invalid_argument("hierarchical allreduce: rank " + std::to_string(onlyRank) +
                                " is out of range for " + std::to_string(ranks) + " ranks");
  checkHierarchicalStages(stages, ranks, onlyRank);
  const Grid g = gridOf(stages, ranks);
  Plan plan;
  plan.collective = CollectiveKind::AllReduce;
  plan.ranks = ranks;
  plan.op = stages.interAllReduce.op;
  plan.algorithm = "hierarchical";
  plan.params = {{"ranks_per_node", g.ranksPerNode},
                 {"intra", stages.intraReduceScatter.algorithm},
                 {"inter", stages.interAllReduce.algorithm}};
  if (stages.intraAllGather.algorithm != stages.intraReduceScatter.algorithm)
    plan.params["intra_allgather"] = stages.intraAllGather.algorithm;
  plan.units = g.units;
  plan.scratchUnits = g.scratchUnits;
  // A rank reads its input only in stage 1 and writes its output only in stage 3, which waits
  // for all of stage 1 on every channel.
  plan.inplaceSafe = true;
  plan.predicted.alphaRounds = stages.intraReduceScatter.predicted.alphaRounds +
                               stages.interAllReduce.predicted.alphaRounds +
                               stages.intraAllGather.predicted.alphaRounds;
  plan.predicted.beta = stages.intraReduceScatter.predicted.beta +
                        stages.interAllReduce.predicted.beta / g.ranksPerNode +
                        stages.intraAllGather.predicted.beta;
  plan.composition = std::make_shared<const HierarchicalStages>(stages);
  plan.programs.resize(size_t(ranks));
  plan.onlyRank = onlyRank;
  for (int r = 0; r < ranks; ++r)
    if (onlyRank < 0 || r == onlyRank) plan.programs[size_t(r)] = composedProgram(stages, g, r);
  return plan;
}

}  // namespace collplan
