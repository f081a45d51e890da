// Hierarchical allreduce: intra-node reduce-scatter, inter-node allreduce, intra-node allgather,
// each stage lowered by a registered algorithm over its sub-group.
//
// Nodes are groups of L ranks (ranks-per-node consecutive ranks, or the topology's nodes); local
// index i owns share i of the message. The `intra` algorithm reduce-scatters inside every node
// (local rank i ends with its node's partial of share i), the `inter` algorithm allreduces share
// i between the K ranks of local index i, and `intra` allgathers inside every node. The message
// is cut so each stage gets the chunks and slices its algorithm wants: share i holds the inter
// stage's Ck chunks (chunk i·Ck + c), and slice s·Sk + t is intra slice s, inter slice t.
#include "compiler/lowering/Algorithms.h"

#include "runtime/plan/Composition.h"
#include "runtime/topology/Topology.h"

#include <array>
#include <map>

using namespace mlir;

namespace collplan {
namespace {

using Nodes = std::vector<std::vector<int>>;

/// Nodes of `ranks-per-node` consecutive ranks, or the topology's nodes (ranks ascending); empty
/// when neither is usable.
Nodes nodesOf(const AlgorithmParams &p, int ranks) {
  Nodes nodes;
  const int perNode = p.getInt("ranks-per-node");
  if (perNode > 0) {
    if (ranks % perNode != 0) return nodes;
    for (int first = 0; first < ranks; first += perNode) {
      nodes.emplace_back();
      for (int r = first; r < first + perNode; ++r) nodes.back().push_back(r);
    }
  } else if (p.topology && p.topology->numRanks() == ranks) {
    std::map<int, std::vector<int>> byNode;
    for (int r = 0; r < ranks; ++r) byNode[p.topology->nodeOf(r)].push_back(r);
    for (auto &[node, members] : byNode) nodes.push_back(members);
  }
  return nodes;
}

/// The stage algorithms and how they cut their sub-collectives.
struct Stages {
  const AlgorithmInfo *intra, *inter;
  CollectiveSpec scatter, gather, allreduce;  ///< intra RS, intra AG (L ranks), inter AR (K)
  int nodes, local;                           ///< K and L
};

Stages stagesOf(const CollectiveSpec &spec, const AlgorithmParams &p, const Nodes &nodes) {
  Stages s;
  s.intra = findAlgorithm(p.getAlgorithmName("intra"));
  s.inter = findAlgorithm(p.getAlgorithmName("inter"));
  s.nodes = int(nodes.size());
  s.local = int(nodes.front().size());
  s.scatter = stageSpec(spec, CollectiveKind::ReduceScatter, s.local, *s.intra);
  s.gather = stageSpec(spec, CollectiveKind::AllGather, s.local, *s.intra);
  s.allreduce = stageSpec(spec, CollectiveKind::AllReduce, s.nodes, *s.inter);
  return s;
}

std::optional<std::string> checkHierarchical(const CollectiveSpec &spec,
                                             const AlgorithmParams &p) {
  const int perNode = p.getInt("ranks-per-node");
  if (perNode == 0 && !p.topology)
    return "ranks per node is 0 (take it from the topology) but no topology is given: set "
           "ranks-per-node or topology";
  if (perNode > 0 && spec.ranks % perNode != 0)
    return "ranks per node " + std::to_string(perNode) + " does not divide " +
           std::to_string(spec.ranks) + " ranks";
  Nodes nodes = nodesOf(p, spec.ranks);
  if (nodes.empty()) return std::string("no nodes: set ranks-per-node or topology");
  for (const auto &node : nodes)
    if (node.size() != nodes.front().size())
      return "hierarchical " + std::string(toString(spec.kind)) +
             " needs the same number of ranks on every node: topology '" +
             p.topology->name + "' has nodes of " + std::to_string(nodes.front().size()) +
             " and " + std::to_string(node.size()) + " ranks";
  const int local = int(nodes.front().size()), count = int(nodes.size());
  const std::string intra = p.getAlgorithmName("intra"), inter = p.getAlgorithmName("inter");
  for (StageRole role : composedStages(spec.kind)) {
    const bool across = stageAcrossNodes(role);
    if (auto bad = checkStage(across ? "inter-node" : "intra-node", across ? inter : intra,
                              stageCollective(role), across ? count : local, spec))
      return bad;
  }
  if (spec.kind != CollectiveKind::AllReduce) return std::nullopt;
  Stages s = stagesOf(spec, p, nodes);
  if (s.scatter.slices != s.gather.slices)
    return "intra-node algorithm '" + intra + "' cuts reduce-scatter into " +
           std::to_string(s.scatter.slices) + " slices and allgather into " +
           std::to_string(s.gather.slices) + ": the stages must agree";
  return std::nullopt;
}

/// Values of the message, each resident at one rank: (node, global chunk, global slice).
using Held = std::map<std::array<int, 3>, Value>;

/// Stage 1: each node's intra reduce-scatter, once per inter part (chunk c, slice t); local rank
/// i's result is its node's partial of share i.
Held reduceInNodes(ScheduleBuilder &b, const Stages &s, const Nodes &nodes) {
  const int ck = s.allreduce.chunks, sk = s.allreduce.slices;
  Held partial;
  for (int n = 0; n < s.nodes; ++n)
    for (int c = 0; c < ck; ++c)
      for (int t = 0; t < sk; ++t) {
        if (s.local == 1) {
          for (int si = 0; si < s.scatter.slices; ++si)
            partial[{n, c, si * sk + t}] = b.input(nodes[n][0], c, si * sk + t);
          continue;
        }
        StageMapping m{nodes[n],
                       [&, n, c, t](int r, int chunk, int si) {
                         return b.input(nodes[n][r], chunk * ck + c, si * sk + t);
                       },
                       [&, n, c, t](Value v, int r, int, int si) {
                         partial[{n, r * ck + c, si * sk + t}] = v;
                       },
                       0};
        buildStage(b, *s.intra, s.scatter, std::move(m));
      }
  return partial;
}

/// Stage 2: share i allreduced between the ranks of local index i, once per intra slice.
Held allreduceAcrossNodes(ScheduleBuilder &b, const Stages &s, const Nodes &nodes,
                          const Held &partial) {
  if (s.nodes == 1) return partial;
  const int ck = s.allreduce.chunks, sk = s.allreduce.slices, first = b.lastStep() + 1;
  Held reduced;
  for (int i = 0; i < s.local; ++i)
    for (int si = 0; si < s.scatter.slices; ++si) {
      std::vector<int> members;
      for (const auto &node : nodes) members.push_back(node[i]);
      StageMapping m{members,
                     [&, i, si](int n, int c, int t) {
                       return partial.at({n, i * ck + c, si * sk + t});
                     },
                     [&, i, si](Value v, int n, int c, int t) {
                       reduced[{n, i * ck + c, si * sk + t}] = v;
                     },
                     first};
      buildStage(b, *s.inter, s.allreduce, std::move(m));
    }
  return reduced;
}

/// Stage 3: each node's intra allgather of its reduced shares, bound as the outputs.
void gatherInNodes(ScheduleBuilder &b, const Stages &s, const Nodes &nodes,
                   const Held &reduced) {
  const int ck = s.allreduce.chunks, sk = s.allreduce.slices, first = b.lastStep() + 1;
  for (int n = 0; n < s.nodes; ++n)
    for (int c = 0; c < ck; ++c)
      for (int t = 0; t < sk; ++t) {
        if (s.local == 1) {
          for (int si = 0; si < s.gather.slices; ++si)
            b.output(reduced.at({n, c, si * sk + t}), nodes[n][0], c, si * sk + t);
          continue;
        }
        StageMapping m{nodes[n],
                       [&, n, c, t](int r, int, int si) {
                         return reduced.at({n, r * ck + c, si * sk + t});
                       },
                       [&, n, c, t](Value v, int r, int chunk, int si) {
                         b.output(v, nodes[n][r], chunk * ck + c, si * sk + t);
                       },
                       first};
        buildStage(b, *s.intra, s.gather, std::move(m));
      }
}

void buildHierarchical(ScheduleBuilder &b, const AlgorithmParams &p) {
  const Nodes nodes = nodesOf(p, b.ranks());
  const Stages s = stagesOf(b.spec(), p, nodes);
  const Held partial = reduceInNodes(b, s, nodes);
  const Held reduced = allreduceAcrossNodes(b, s, nodes, partial);
  gatherInNodes(b, s, nodes, reduced);
}

/// Whether the algorithm named `name` reads remotely with its default parameters.
bool stageReadsRemotely(const std::string &name) {
  const AlgorithmInfo *a = findAlgorithm(name);
  if (!a) return false;
  return a->remoteReadsWith ? a->remoteReadsWith(AlgorithmParams(*a)) : a->remoteReads;
}

/// The stages of a composed plan (runtime/plan/Composition.h): its nodes must be consecutive
/// ranks, as the composition numbers them.
std::optional<ComposedForm> composedHierarchical(const CollectiveSpec &spec,
                                                      const AlgorithmParams &p,
                                                      std::string &error) {
  if (auto bad = checkHierarchical(spec, p)) {
    error = *bad;
    return std::nullopt;
  }
  const Nodes nodes = nodesOf(p, spec.ranks);
  const int local = int(nodes.front().size());
  for (size_t n = 0; n < nodes.size(); ++n)
    for (int i = 0; i < local; ++i)
      if (nodes[n][size_t(i)] != int(n) * local + i) {
        error = "a composed plan needs nodes of consecutive ranks, but node " +
                std::to_string(n) + " of the topology holds rank " +
                std::to_string(nodes[n][size_t(i)]) + " as its local rank " + std::to_string(i);
        return std::nullopt;
      }
  ComposedForm form{local, {}};
  for (StageRole role : composedStages(spec.kind))
    form.stageAlgorithms.push_back(p.getAlgorithmName(stageAcrossNodes(role) ? "inter" : "intra"));
  return form;
}

/// The intra-node algorithms plan-tune tries: the default, or where an allreduce is composed
/// of stages at their own sizes, ring, whose stages keep each block's partial results in that
/// block's units as the allreduce's composition needs (mesh-two-step's scratch does not).
std::vector<std::string> intraValues(const CollectiveSpec &spec, bool) {
  const AlgorithmInfo &hier = *findAlgorithm("hierarchical");
  if (spec.kind == CollectiveKind::AllReduce && compiledAsStages(spec, hier, AlgorithmParams(hier)))
    return {"ring"};
  return {hier.findParam("intra")->defaultValue};
}

/// The inter-node algorithms plan-tune tries: ring, and the latency-optimal one of the stage's
/// collective.
std::vector<std::string> interValues(const CollectiveSpec &spec, bool) {
  if (spec.kind == CollectiveKind::ReduceScatter) return {"ring", "recursive-halving"};
  return {"ring", "recursive-doubling"};
}

}  // namespace

void registerHierarchicalAlgorithms(AlgorithmRegistry &registry) {
  AlgorithmInfo hier;
  hier.name = "hierarchical";
  hier.summary = "stages inside nodes (intra) and across them per local index (inter), each "
                 "any registered algorithm: allreduce as reduce-scatter, allreduce, allgather; "
                 "allgather and reduce-scatter as stage plans of their own sizes";
  hier.kinds = {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                CollectiveKind::ReduceScatter};
  hier.composedKinds = {CollectiveKind::AllGather, CollectiveKind::ReduceScatter};
  hier.params = {
      intParam("ranks-per-node", 0, 0, kMaxRanks, "ranks per node (0: the topology's nodes)",
               "rpn"),
      algorithmParam("intra", "mesh-two-step",
                     "intra-node stages: an algorithm with reduce-scatter and allgather"),
      algorithmParam("inter", "ring",
                     "inter-node stage: an algorithm with allreduce, over the ranks of one "
                     "local index")};
  hier.tuning = {TuningAxis{"intra", intraValues},
                 TuningAxis{"inter", interValues}};
  hier.example = {"ranks-per-node=2"};
  hier.check = checkHierarchical;
  hier.chunks = [](const CollectiveSpec &spec, const AlgorithmParams &p) {
    Nodes nodes = nodesOf(p, spec.ranks);
    // Bad parameters (`check` reports them), or a kind built from stage plans.
    if (nodes.empty() || spec.kind != CollectiveKind::AllReduce) return 1;
    return int(nodes.front().size()) * stagesOf(spec, p, nodes).allreduce.chunks;
  };
  hier.slices = [](const CollectiveSpec &spec, const AlgorithmParams &p) {
    Nodes nodes = nodesOf(p, spec.ranks);
    if (nodes.empty() || spec.kind != CollectiveKind::AllReduce) return 1;
    Stages s = stagesOf(spec, p, nodes);
    return s.scatter.slices * s.allreduce.slices;
  };
  // A rank's messages are its stages' (each stage algorithm's own count, at its defaults).
  hier.messages = [](const CollectiveSpec &spec, const AlgorithmParams &p) -> std::optional<int> {
    Nodes nodes = nodesOf(p, spec.ranks);
    if (nodes.empty()) return std::nullopt;
    const int local = int(nodes.front().size()), count = int(nodes.size());
    int total = 0;
    for (StageRole role : composedStages(spec.kind)) {
      const bool across = stageAcrossNodes(role);
      const AlgorithmInfo *algorithm = findAlgorithm(p.getAlgorithmName(across ? "inter" : "intra"));
      if (!algorithm || !algorithm->messages) return std::nullopt;
      const CollectiveSpec stage =
          stageSpec(spec, stageCollective(role), across ? count : local, *algorithm);
      std::optional<int> messages = algorithm->messages(stage, AlgorithmParams(*algorithm));
      if (!messages) return std::nullopt;
      total += *messages;
    }
    return total;
  };
  hier.remoteReadsWith = [](const AlgorithmParams &p) {
    return stageReadsRemotely(p.getAlgorithmName("intra")) ||
           stageReadsRemotely(p.getAlgorithmName("inter"));
  };
  hier.composed = composedHierarchical;
  hier.build = buildHierarchical;
  registry.add(std::move(hier));
}

}  // namespace collplan
