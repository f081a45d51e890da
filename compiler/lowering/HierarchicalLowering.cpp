// Hierarchical allreduce: intra-node reduce-scatter, inter-node allreduce, intra-node allgather.
//
// Nodes are groups of L ranks (params.ranksPerNode consecutive ranks, or the topology's nodes);
// local index i owns share i of the message. Inside each node the ranks write their share-i
// chunks to local rank i, which folds them in local order; the K ranks with local index i then
// allreduce their partials across nodes (a ring over the K nodes, whose share is cut into K
// chunks, or recursive doubling); finally each duplicates the result to the rest of its node.
#include "compiler/lowering/Algorithms.h"

#include "runtime/topology/Topology.h"

#include <map>

using namespace mlir;

namespace collplan {
namespace {

using Nodes = std::vector<std::vector<int>>;

bool interIsRing(const AlgorithmParams &p) { return p.inter == "ring"; }

/// Nodes of `ranksPerNode` consecutive ranks, or the topology's nodes (ranks ascending); empty
/// when neither is usable.
Nodes nodesOf(const AlgorithmParams &p, int ranks) {
  Nodes nodes;
  if (p.ranksPerNode > 0) {
    if (ranks % p.ranksPerNode != 0) return nodes;
    for (int first = 0; first < ranks; first += p.ranksPerNode) {
      nodes.emplace_back();
      for (int r = first; r < first + p.ranksPerNode; ++r) nodes.back().push_back(r);
    }
  } else if (p.ranksPerNode == 0 && p.topology && p.topology->numRanks() == ranks) {
    std::map<int, std::vector<int>> byNode;
    for (int r = 0; r < ranks; ++r) byNode[p.topology->nodeOf(r)].push_back(r);
    for (auto &[node, members] : byNode) nodes.push_back(members);
  }
  return nodes;
}

std::optional<std::string> checkHierarchical(const CollectiveSpec &spec,
                                             const AlgorithmParams &p) {
  if (p.inter != "ring" && p.inter != "recursive-doubling")
    return "inter-node algorithm '" + p.inter + "' is not one of: ring, recursive-doubling";
  if (p.ranksPerNode < 0)
    return "ranks per node must be at least 1 (got " + std::to_string(p.ranksPerNode) + ")";
  if (p.ranksPerNode == 0 && !p.topology)
    return "ranks per node is 0 (take it from the topology) but no topology is given: set "
           "ranks-per-node or topology";
  if (p.ranksPerNode > 0 && spec.ranks % p.ranksPerNode != 0)
    return "ranks per node " + std::to_string(p.ranksPerNode) + " does not divide " +
           std::to_string(spec.ranks) + " ranks";
  Nodes nodes = nodesOf(p, spec.ranks);
  for (const auto &node : nodes)
    if (node.size() != nodes.front().size())
      return "hierarchical allreduce needs the same number of ranks on every node: topology '" +
             p.topology->name + "' has nodes of " + std::to_string(nodes.front().size()) +
             " and " + std::to_string(node.size()) + " ranks";
  return std::nullopt;
}

/// Chunks of one node-local share: K for an inter-node ring over K nodes, else 1.
int piecesPerShare(const AlgorithmParams &p, const Nodes &nodes) {
  return interIsRing(p) ? std::max<int>(1, nodes.size()) : 1;
}

/// Inter-node ring allreduce of `partials` (one per node, resident at the node's rank with the
/// share's local index): piece `piece` is reduced ending at node `piece`, then circulated.
/// Returns the reduced value at every node.
std::vector<Value> interRing(ScheduleBuilder &b, const std::vector<int> &members,
                             const std::vector<Value> &partials, int piece, int firstStep) {
  int k = int(members.size());
  if (k == 1) return partials;
  auto at = [&](int hop) { return (piece + 1 + hop) % k; };  // node positions, hop 0..k-1
  b.setStep(firstStep);
  Value partial = b.copy(partials[at(0)], members[at(1)]);
  for (int hop = 1; hop + 1 < k; ++hop) {
    b.setStep(firstStep + hop);
    partial = b.reduceSend({partial, partials[at(hop)]}, members[at(hop)], members[at(hop + 1)]);
  }
  partial = b.reduce({partial, partials[at(k - 1)]}, members[at(k - 1)]);
  std::vector<Value> reduced(k);
  reduced[piece] = partial;
  for (int hop = 1; hop < k; ++hop) {
    b.setStep(firstStep + k - 1 + hop - 1);
    partial = b.copy(partial, members[(piece + hop) % k]);
    reduced[(piece + hop) % k] = partial;
  }
  return reduced;
}

/// Largest power of two <= k.
int powerOfTwoBelow(int k) {
  int pow2 = 1;
  while (pow2 * 2 <= k) pow2 *= 2;
  return pow2;
}

/// Steps the inter-node stage takes over `k` nodes.
int interSteps(const AlgorithmParams &p, int k) {
  if (interIsRing(p)) return 2 * (k - 1);
  int pow2 = powerOfTwoBelow(k), steps = pow2 < k ? 2 : 0;
  for (int distance = 1; distance < pow2; distance *= 2) ++steps;
  return steps;
}

/// Inter-node recursive doubling of `partials`: ranks beyond the largest power of two first
/// fold into a partner and get the result back at the end. Partners fold (lower, upper), so
/// every copy has the same reduction tree.
std::vector<Value> interRecursiveDoubling(ScheduleBuilder &b, const std::vector<int> &members,
                                          std::vector<Value> values, int firstStep) {
  int k = int(members.size());
  int pow2 = powerOfTwoBelow(k);
  int step = firstStep;
  if (pow2 < k) {
    b.setStep(step++);
    for (int n = pow2; n < k; ++n)
      values[n - pow2] =
          b.reduce({values[n - pow2], b.copy(values[n], members[n - pow2])}, members[n - pow2]);
  }
  for (int distance = 1; distance < pow2; distance *= 2) {
    b.setStep(step++);
    std::vector<Value> next(values);
    for (int n = 0; n < pow2; ++n) {
      int partner = n ^ distance;
      Value theirs = b.copy(values[partner], members[n]);
      next[n] = n < partner ? b.reduce({values[n], theirs}, members[n])
                            : b.reduce({theirs, values[n]}, members[n]);
    }
    values = next;
  }
  if (pow2 < k) {
    b.setStep(step);
    for (int n = pow2; n < k; ++n) values[n] = b.copy(values[n - pow2], members[n]);
  }
  return values;
}

/// Intra-node reduce-scatter of `chunk` to local rank `i` of every node: the others write their
/// chunk to it (emitted in ring-shift order from i, so writers do not collide), and it folds
/// them in local order. Returns each node's partial.
std::vector<Value> intraReduce(ScheduleBuilder &b, const Nodes &nodes, int i, int chunk) {
  std::vector<Value> partials;
  b.setStep(0);
  for (const auto &node : nodes) {
    int local = int(node.size());
    SmallVector<Value> operands(local);
    operands[i] = b.input(node[i], chunk);
    for (int shift = 1; shift < local; ++shift) {
      int j = (i + shift) % local;
      operands[j] = b.copy(b.input(node[j], chunk), node[i]);
    }
    partials.push_back(b.reduce(operands, node[i]));
  }
  b.setStep(-1);
  return partials;
}

/// Intra-node allgather: local rank `i` of node n duplicates `reduced[n]` to the rest of n.
void intraGather(ScheduleBuilder &b, const Nodes &nodes, int i, const std::vector<Value> &reduced,
                 int chunk, int step) {
  b.setStep(step);
  for (int n = 0; n < int(nodes.size()); ++n) {
    const auto &node = nodes[n];
    b.output(reduced[n], node[i], chunk);
    SmallVector<int> others;
    for (int shift = 1; shift < int(node.size()); ++shift)
      others.push_back(node[(i + shift) % node.size()]);
    if (others.empty()) continue;
    SmallVector<Value> copies = b.dup(reduced[n], others);
    for (size_t j = 0; j < others.size(); ++j) b.output(copies[j], others[j], chunk);
  }
  b.setStep(-1);
}

void buildHierarchical(ScheduleBuilder &b, const AlgorithmParams &p) {
  Nodes nodes = nodesOf(p, b.ranks());
  if (nodes.empty()) return;  // `check` has reported why
  int k = int(nodes.size()), local = int(nodes.front().size());
  int pieces = piecesPerShare(p, nodes);
  for (int i = 0; i < local; ++i) {
    std::vector<int> members;
    for (const auto &node : nodes) members.push_back(node[i]);
    for (int piece = 0; piece < pieces; ++piece) {
      int chunk = i * pieces + piece;
      std::vector<Value> partials = intraReduce(b, nodes, i, chunk);
      std::vector<Value> reduced = interIsRing(p)
                                       ? interRing(b, members, partials, piece, 1)
                                       : interRecursiveDoubling(b, members, partials, 1);
      intraGather(b, nodes, i, reduced, chunk, 1 + interSteps(p, k));
    }
  }
}

}  // namespace

void registerHierarchicalAlgorithms(std::vector<AlgorithmInfo> &registry) {
  AlgorithmInfo hier;
  hier.name = "hierarchical";
  hier.family = "hierarchical";
  hier.summary = "intra-node reduce-scatter, inter-node allreduce per local index (ring or "
                 "recursive doubling), intra-node allgather";
  hier.kinds = {CollectiveKind::AllReduce};
  hier.check = checkHierarchical;
  hier.chunks = [](const CollectiveSpec &s, const AlgorithmParams &p) {
    Nodes nodes = nodesOf(p, s.ranks);
    if (nodes.empty()) return 1;  // bad parameters: `check` reports them
    return int(nodes.front().size()) * piecesPerShare(p, nodes);
  };
  hier.build = buildHierarchical;
  hier.params = {"ranks-per-node", "inter"};
  hier.tuning = {fixedAxis("inter", {"ring", "recursive-doubling"}, 2)};
  registry.push_back(hier);
}

}  // namespace collplan
