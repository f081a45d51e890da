// composeHierarchical: a rank's program of a hierarchical collective from its stages' programs.
#include "runtime/plan/Composition.h"

#include "runtime/core/Limits.h"

#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace collplan {
namespace {

struct RoleInfo {
  StageRole role;
  CollectiveKind kind;
  bool acrossNodes;
  std::string_view key, description;
};

constexpr std::array<RoleInfo, 5> kRoles = {{
    {StageRole::IntraReduceScatter, CollectiveKind::ReduceScatter, false, "intra_reduce_scatter",
     "intra-node reduce-scatter"},
    {StageRole::InterAllReduce, CollectiveKind::AllReduce, true, "inter_allreduce",
     "inter-node allreduce"},
    {StageRole::InterAllGather, CollectiveKind::AllGather, true, "inter_allgather",
     "inter-node allgather"},
    {StageRole::InterReduceScatter, CollectiveKind::ReduceScatter, true, "inter_reduce_scatter",
     "inter-node reduce-scatter"},
    {StageRole::IntraAllGather, CollectiveKind::AllGather, false, "intra_allgather",
     "intra-node allgather"},
}};

const RoleInfo &info(StageRole role) { return kRoles[size_t(role)]; }


std::string composedName(CollectiveKind kind) {
  return "hierarchical " + std::string(toString(kind));
}

[[noreturn]] void refuse(CollectiveKind kind, StageRole s, const std::string &reason) {
  throw std::invalid_argument(composedName(kind) + ": the " +
                              std::string(stageDescription(s)) + " " + reason);
}

/// `neededRank`: the one stage rank whose program a one-rank composition takes (-1: all).
void checkStage(CollectiveKind composed, const Plan &plan, StageRole s, int ranks,
                int neededRank) {
  const CollectiveKind kind = stageCollective(s);
  if (plan.collective != kind)
    refuse(composed, s,
           "is a plan for " + std::string(toString(plan.collective)) + ", not " +
               std::string(toString(kind)));
  if (plan.ranks != ranks)
    refuse(composed, s,
           "plan has " + std::to_string(plan.ranks) + " ranks where " + std::to_string(ranks) +
               " run it");
  if (plan.programs.size() != size_t(plan.ranks))
    refuse(composed, s,
           "plan has " + std::to_string(plan.programs.size()) + " programs for " +
               std::to_string(plan.ranks) + " ranks");
  if (plan.onlyRank >= 0 && plan.onlyRank != neededRank)
    refuse(composed, s,
           "plan must hold " +
               (neededRank < 0 ? std::string("every rank's program")
                               : "the program of its rank " + std::to_string(neededRank)) +
               " (it was loaded for rank " + std::to_string(plan.onlyRank) + " alone)");
  if (plan.units == 0) refuse(composed, s, "plan has no units");
}

/// Where the composed plan puts a stage's buffers: per buffer kind of the stage, the composed
/// buffer and the unit the stage's unit 0 lands on; `scale` composed units per stage unit.
struct StageLayout {
  BufferKind in = BufferKind::In, out = BufferKind::Out, tmp = BufferKind::Tmp;
  uint32_t inBase = 0, outBase = 0, tmpBase = 0;
  uint32_t scale = 1;
  /// Nonzero for the allreduce's inter-node stage, whose whole message is one block of the
  /// composed one: its scratch units come in periods of its message's units, each period
  /// mapped to a slot of `tmpSlot` composed units, so a unit keeps its position in the message
  /// (a range never crosses a period: its phases are its source's).
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

uint64_t checkedUnits(CollectiveKind kind, uint64_t units, const char *what) {
  if (units > uint64_t(kMaxUnits))
    throw std::invalid_argument(composedName(kind) + ": its " + std::string(what) +
                                " would be " + std::to_string(units) +
                                " units, above the limit of " + std::to_string(kMaxUnits));
  return units;
}

uint64_t roundUp(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// The composed unit grid, the stages' places in it and, for allgather and reduce-scatter, the
/// copies between node-major and local-major order.
struct Grid {
  CollectiveKind collective = CollectiveKind::AllReduce;
  int ranksPerNode = 1, nodes = 1;
  uint32_t units = 1, block = 1;  ///< the message's units, and one block's
  uint32_t scratchUnits = 0;
  std::vector<uint32_t> scales, stageTmp;
  uint32_t regionA = 0, regionB = 0;  ///< scratch handed from one stage to the next
  uint32_t interUnits = 1;            ///< the allreduce's inter-node plan's units
  bool permutes = false;              ///< copies between node-major and local-major order

  StageLayout layout(size_t s, int local) const;
  /// The copies of a rank of an allgather or reduce-scatter (empty unless `permutes`).
  RankProgram copies() const;
};

/// The allreduce's grid. A unit's size depends on its position in the message (its phase:
/// units differ by one element when the count does not divide), so every value stays at its
/// message position modulo `units`: block l of local rank l lives at l * block in the scratch
/// regions A and B; the inter-node stage's scratch is slots of `units`, each holding its period
/// at l * block; the intra-node stages' scratch starts at a multiple of `units`, which keeps the
/// phases of intra-node plans that hold a block's partial results in scratch units of that
/// block, as the built-in plans do.
Grid allReduceGrid(const HierarchicalStages &stages, Grid g) {
  const uint64_t L = uint64_t(g.ranksPerNode);
  const uint64_t rs = stages.plans[0].units, ar = stages.plans[1].units,
                 ag = stages.plans[2].units;
  const uint64_t units = checkedUnits(g.collective, std::lcm(std::lcm(rs, ag), L * ar), "units");
  g.units = uint32_t(units);
  g.block = uint32_t(units / L);
  g.scales = {uint32_t(units / rs), uint32_t(units / (L * ar)), uint32_t(units / ag)};
  g.interUnits = uint32_t(ar);
  // Scratch: region A (stage 1's result), region B (stage 2's), then each stage's own, every
  // one starting at a multiple of the message's units.
  uint64_t next = 2 * units;
  for (size_t s = 0; s < 3; ++s) {
    g.stageTmp.push_back(uint32_t(checkedUnits(g.collective, next, "scratch")));
    const uint64_t scratch = stages.plans[s].scratchUnits;
    // The inter-node stage: one slot of the message's units per period of its own.
    const uint64_t used = s == 1 ? (scratch + ar - 1) / ar * units : scratch * g.scales[s];
    next = roundUp(next + used, units);
  }
  g.regionA = 0;
  g.regionB = g.units;
  g.scratchUnits = uint32_t(checkedUnits(g.collective, next, "scratch"));
  return g;
}

/// The grid of an allgather or reduce-scatter: `block` composed units per rank's block. A stage
/// block of an intra-node stage is K composed blocks (the K blocks of one local index), of an
/// inter-node stage one. Region A holds the K blocks of the rank's local index, region B all
/// N blocks in local-major order; the stages' scratch follows, each at a multiple of `block`,
/// so every value keeps its position modulo a block.
Grid blockGrid(const HierarchicalStages &stages, Grid g) {
  const std::vector<StageRole> &roles = composedStages(g.collective);
  uint64_t block = 1;
  for (size_t s = 0; s < roles.size(); ++s) {
    const Plan &plan = stages.plans[s];
    const uint64_t perStageBlock = plan.units / uint64_t(plan.ranks);
    const uint64_t blocksPerStageBlock = stageAcrossNodes(roles[s]) ? 1 : uint64_t(g.nodes);
    block = std::lcm(block, perStageBlock / std::gcd(perStageBlock, blocksPerStageBlock));
  }
  const uint64_t N = uint64_t(g.nodes) * uint64_t(g.ranksPerNode);
  g.units = uint32_t(checkedUnits(g.collective, N * block, "units"));
  g.block = uint32_t(block);
  g.permutes = g.nodes > 1 && g.ranksPerNode > 1;
  g.regionA = 0;
  g.regionB = uint32_t(uint64_t(g.nodes) * block);
  uint64_t next = g.regionB + (g.permutes ? N * block : 0);
  for (size_t s = 0; s < roles.size(); ++s) {
    const Plan &plan = stages.plans[s];
    const uint64_t blocksPerStageBlock = stageAcrossNodes(roles[s]) ? 1 : uint64_t(g.nodes);
    g.scales.push_back(uint32_t(blocksPerStageBlock * block / (plan.units / uint64_t(plan.ranks))));
    g.stageTmp.push_back(uint32_t(checkedUnits(g.collective, next, "scratch")));
    next = roundUp(next + uint64_t(plan.scratchUnits) * g.scales[s], block);
  }
  g.scratchUnits = uint32_t(checkedUnits(g.collective, next, "scratch"));
  return g;
}

Grid gridOf(const HierarchicalStages &stages, int ranks) {
  Grid g;
  g.collective = stages.collective;
  g.ranksPerNode = stages.ranksPerNode;
  g.nodes = ranks / stages.ranksPerNode;
  if (stages.collective == CollectiveKind::AllReduce) return allReduceGrid(stages, g);
  return blockGrid(stages, g);
}

StageLayout Grid::layout(size_t s, int local) const {
  const BufferKind In = BufferKind::In, Out = BufferKind::Out, Tmp = BufferKind::Tmp;
  if (collective == CollectiveKind::AllReduce) {
    const uint32_t mine = uint32_t(local) * block;
    switch (s) {
    case 0: return {In, Tmp, Tmp, 0, regionA + mine, stageTmp[0], scales[0]};
    case 1: return {Tmp, Tmp, Tmp, regionA + mine, regionB + mine, stageTmp[1] + mine,
                    scales[1], interUnits, units};
    default: return {Tmp, Out, Tmp, regionB + mine, 0, stageTmp[2], scales[2]};
    }
  }
  // Without copies (one node, or one rank per node) both orders are the message's own.
  if (collective == CollectiveKind::AllGather) {
    if (s == 0) return {In, Tmp, Tmp, 0, regionA, stageTmp[0], scales[0]};
    return {Tmp, permutes ? Tmp : Out, Tmp, regionA, permutes ? regionB : 0, stageTmp[1],
            scales[1]};
  }
  if (s == 0)
    return {permutes ? Tmp : In, Tmp, Tmp, permutes ? regionB : 0, regionA, stageTmp[0],
            scales[0]};
  return {Tmp, Out, Tmp, regionA, 0, stageTmp[1], scales[1]};
}

RankProgram Grid::copies() const {
  RankProgram program;
  if (!permutes) return program;
  std::vector<PlanOp> &ops = program.channel(0);
  const int L = ranksPerNode, K = nodes;
  ops.reserve(size_t(K) * size_t(L));
  const bool gathering = collective == CollectiveKind::AllGather;
  for (int k = 0; k < K; ++k)
    for (int l = 0; l < L; ++l) {
      const BufRef nodeMajor{gathering ? BufferKind::Out : BufferKind::In,
                             uint32_t(k * L + l) * block, block};
      const BufRef localMajor{BufferKind::Tmp, regionB + uint32_t(l * K + k) * block, block};
      PlanOp copy;
      copy.kind = OpKind::Copy;
      copy.srcs = {gathering ? localMajor : nodeMajor};
      copy.dsts = {gathering ? nodeMajor : localMajor};
      copy.step = 0;
      ops.push_back(std::move(copy));
    }
  return program;
}

/// Builds one rank's program stage by stage: each stage's ops renamed and mapped, a channel's
/// first op of a stage waiting for every other channel's last op of the stages before.
class ProgramAssembler {
public:
  template <typename WorldRank>
  void append(const RankProgram &stageProgram, const StageLayout &layout, WorldRank worldRank) {
    const size_t channels = stageProgram.channels.size();
    if (lastOp_.size() < channels) lastOp_.resize(channels, -1);
    const std::vector<int64_t> before = lastOp_;  // the earlier stages' last ops
    std::vector<uint32_t> firstIndex(channels);
    for (size_t c = 0; c < channels; ++c)
      firstIndex[c] = uint32_t(program_.channel(c).size());
    int32_t lastStep = -1;
    for (size_t c = 0; c < channels; ++c) {
      std::vector<PlanOp> &ops = program_.channel(c);
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
        lastStep = std::max(lastStep, op.step);
        if (op.step >= 0) op.step += stepOffset_;
        ops.push_back(std::move(op));
      }
      if (!stageProgram.channels[c].ops.empty()) lastOp_[c] = int64_t(ops.size()) - 1;
    }
    stepOffset_ += lastStep + 1;
  }

  RankProgram take() { return std::move(program_); }

private:
  RankProgram program_;
  std::vector<int64_t> lastOp_;  ///< the last op of each channel so far
  int32_t stepOffset_ = 0;
};

RankProgram composedProgram(const HierarchicalStages &stages, const Grid &g, int rank) {
  const int L = g.ranksPerNode, node = rank / L, local = rank % L;
  auto inNode = [&](int32_t peer) { return int32_t(node * L + peer); };
  auto acrossNodes = [&](int32_t peer) { return int32_t(peer * L + local); };
  auto self = [](int32_t peer) { return peer; };
  const RankProgram copies = g.copies();
  ProgramAssembler program;
  if (stages.collective == CollectiveKind::ReduceScatter) program.append(copies, {}, self);
  const std::vector<StageRole> &roles = composedStages(stages.collective);
  for (size_t s = 0; s < roles.size(); ++s) {
    const bool across = stageAcrossNodes(roles[s]);
    const RankProgram &stageProgram = stages.plans[s].programs[size_t(across ? node : local)];
    if (across)
      program.append(stageProgram, g.layout(s, local), acrossNodes);
    else
      program.append(stageProgram, g.layout(s, local), inNode);
  }
  if (stages.collective == CollectiveKind::AllGather) program.append(copies, {}, self);
  return program.take();
}

/// What `program`'s ops span once its units are scaled, as the loaders' size guards count
/// (PlanJsonRead's programUnits).
uint64_t scaledProgramUnits(const RankProgram &program, uint64_t scale) {
  uint64_t units = 0;
  for (const Channel &channel : program.channels)
    for (const PlanOp &op : channel.ops)
      units += uint64_t(op.length()) * scale *
                   (op.numOperands() + op.dsts.size() + op.sends.size()) +
               1;
  return units;
}

}  // namespace

const std::vector<StageRole> &composedStages(CollectiveKind collective) {
  static const std::vector<StageRole> allReduce = {
      StageRole::IntraReduceScatter, StageRole::InterAllReduce, StageRole::IntraAllGather};
  static const std::vector<StageRole> allGather = {StageRole::InterAllGather,
                                                   StageRole::IntraAllGather};
  static const std::vector<StageRole> reduceScatter = {StageRole::IntraReduceScatter,
                                                       StageRole::InterReduceScatter};
  static const std::vector<StageRole> none;
  switch (collective) {
  case CollectiveKind::AllReduce: return allReduce;
  case CollectiveKind::AllGather: return allGather;
  case CollectiveKind::ReduceScatter: return reduceScatter;
  default: return none;
  }
}

CollectiveKind stageCollective(StageRole role) { return info(role).kind; }
bool stageAcrossNodes(StageRole role) { return info(role).acrossNodes; }
std::string_view stageKey(StageRole role) { return info(role).key; }
std::string_view stageDescription(StageRole role) { return info(role).description; }

const Plan &HierarchicalStages::stage(StageRole role) const {
  const std::vector<StageRole> &roles = composedStages(collective);
  for (size_t s = 0; s < roles.size() && s < plans.size(); ++s)
    if (roles[s] == role) return plans[s];
  throw std::invalid_argument(composedName(collective) + " has no " +
                              std::string(stageDescription(role)));
}

Plan &HierarchicalStages::stage(StageRole role) {
  return const_cast<Plan &>(std::as_const(*this).stage(role));
}

HierarchicalStages allReduceStages(int ranksPerNode, Plan intraReduceScatter, Plan interAllReduce,
                                   Plan intraAllGather) {
  HierarchicalStages stages{CollectiveKind::AllReduce, ranksPerNode, {}};
  stages.plans = {std::move(intraReduceScatter), std::move(interAllReduce),
                  std::move(intraAllGather)};
  return stages;
}

HierarchicalStages allGatherStages(int ranksPerNode, Plan interAllGather, Plan intraAllGather) {
  HierarchicalStages stages{CollectiveKind::AllGather, ranksPerNode, {}};
  stages.plans = {std::move(interAllGather), std::move(intraAllGather)};
  return stages;
}

HierarchicalStages reduceScatterStages(int ranksPerNode, Plan intraReduceScatter,
                                       Plan interReduceScatter) {
  HierarchicalStages stages{CollectiveKind::ReduceScatter, ranksPerNode, {}};
  stages.plans = {std::move(intraReduceScatter), std::move(interReduceScatter)};
  return stages;
}

void checkHierarchicalStages(const HierarchicalStages &stages, int ranks, int forRank) {
  const CollectiveKind kind = stages.collective;
  const std::vector<StageRole> &roles = composedStages(kind);
  if (roles.empty())
    throw std::invalid_argument("a composed plan is an allreduce, allgather or reduce_scatter, "
                                "not " + std::string(toString(kind)));
  if (stages.plans.size() != roles.size())
    throw std::invalid_argument(composedName(kind) + ": " + std::to_string(roles.size()) +
                                " stage plans needed, " + std::to_string(stages.plans.size()) +
                                " given");
  const int L = stages.ranksPerNode;
  if (L < 1 || ranks < 1 || ranks % L != 0)
    throw std::invalid_argument(composedName(kind) + ": " + std::to_string(ranks) +
                                " ranks do not make whole nodes of " + std::to_string(L) +
                                " ranks");
  const int local = forRank < 0 ? -1 : forRank % L, node = forRank < 0 ? -1 : forRank / L;
  for (size_t s = 0; s < roles.size(); ++s) {
    const bool across = stageAcrossNodes(roles[s]);
    checkStage(kind, stages.plans[s], roles[s], across ? ranks / L : L, across ? node : local);
  }
  for (size_t s = 1; s < roles.size(); ++s)
    if (needsReduceOp(stageCollective(roles[s])) && stages.plans[s].op != stages.plans[0].op)
      refuse(kind, roles[s],
             "reduces with " + std::string(toString(stages.plans[s].op.value_or(ReduceOp::Sum))) +
                 " but the " + std::string(stageDescription(roles[0])) + " with " +
                 std::string(toString(stages.plans[0].op.value_or(ReduceOp::Sum))));
  gridOf(stages, ranks);  // the units and scratch limits
}

bool buildableFromStages(const Plan &plan) {
  if (!plan.composition || plan.composition->plans.empty()) return false;
  for (const Plan &stage : plan.composition->plans)
    if (stage.onlyRank >= 0) return false;
  return true;
}

Plan composeHierarchical(const HierarchicalStages &stages, int ranks, int onlyRank) {
  if (onlyRank < -1 || onlyRank >= ranks)
    throw std::invalid_argument(composedName(stages.collective) + ": rank " +
                                std::to_string(onlyRank) + " is out of range for " +
                                std::to_string(ranks) + " ranks");
  checkHierarchicalStages(stages, ranks, onlyRank);
  const Grid g = gridOf(stages, ranks);
  const std::vector<StageRole> &roles = composedStages(stages.collective);
  Plan plan;
  plan.collective = stages.collective;
  plan.ranks = ranks;
  plan.op = stages.plans[0].op;
  plan.algorithm = "hierarchical";
  plan.params = {{"ranks_per_node", g.ranksPerNode}};
  for (size_t s = 0; s < roles.size(); ++s) {
    const char *key = stageAcrossNodes(roles[s]) ? "inter" : "intra";
    if (!plan.params.contains(key))
      plan.params[key] = stages.plans[s].algorithm;
    else if (plan.params[key] != stages.plans[s].algorithm)
      plan.params[std::string(key) + "_" + std::string(toString(stageCollective(roles[s])))] =
          stages.plans[s].algorithm;
  }
  plan.units = g.units;
  plan.scratchUnits = g.scratchUnits;
  // A rank reads its input only in its first stage (or copies) and writes its output only in
  // its last, which waits for all of the first on every channel.
  plan.inplaceSafe = true;
  for (size_t s = 0; s < roles.size(); ++s) {
    const PredictedCost &stage = stages.plans[s].predicted;
    plan.predicted.alphaRounds += stage.alphaRounds;
    // An inter-node stage moves 1/L of the message.
    plan.predicted.beta += stage.beta / (stageAcrossNodes(roles[s]) ? g.ranksPerNode : 1);
  }
  plan.composition = std::make_shared<const HierarchicalStages>(stages);
  plan.programs.resize(size_t(ranks));
  plan.onlyRank = onlyRank;
  for (int r = 0; r < ranks; ++r)
    if (onlyRank < 0 || r == onlyRank) plan.programs[size_t(r)] = composedProgram(stages, g, r);
  return plan;
}

ComposedSize composedProgramSize(const HierarchicalStages &stages, int ranks) {
  const Grid g = gridOf(stages, ranks);
  const std::vector<StageRole> &roles = composedStages(stages.collective);
  ComposedSize size{0, uint64_t(ranks)};  // a unit per program
  for (size_t s = 0; s < roles.size(); ++s) {
    // An inter-node program runs on L ranks, an intra-node one on K.
    const uint64_t runs = uint64_t(stageAcrossNodes(roles[s]) ? g.ranksPerNode : g.nodes);
    for (const RankProgram &program : stages.plans[s].programs) {
      size.ops += runs * program.numOps();
      size.units += runs * scaledProgramUnits(program, g.scales[s]);
    }
  }
  const RankProgram copies = g.copies();
  size.ops += uint64_t(ranks) * copies.numOps();
  size.units += uint64_t(ranks) * scaledProgramUnits(copies, 1);
  return size;
}

std::vector<int> sampledRanks(const HierarchicalStages &stages, int ranks) {
  const int L = stages.ranksPerNode;
  std::vector<int> sample = {0, L - 1, ranks - L, ranks - 1};
  std::sort(sample.begin(), sample.end());
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  return sample;
}

}  // namespace collplan
