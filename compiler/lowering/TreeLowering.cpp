// Tree lowerings: binomial tree, pipelined fan-out-k tree and NCCL's double binary tree.
//
// Every tree algorithm is a rooted tree (one for reductions, one for broadcasts) plus a step
// function per edge: a reduction folds each node's own chunk with its children's partials (in
// the tree's child order) and sends the result to the parent in one fused reduce-send; a
// broadcast copies down from the root.
#include "compiler/lowering/Algorithms.h"
#include "runtime/core/Text.h"

#include <algorithm>
#include <array>
#include <functional>
#include <memory>

using namespace mlir;

namespace collplan {
namespace {

/// A rooted spanning tree of the ranks.
struct Tree {
  int root = 0;
  std::vector<int> parent;                 ///< -1 at the root
  std::vector<std::vector<int>> children;  ///< in fold order

  /// Builds the children lists from `parents` (children in increasing order of `key`).
  static Tree fromParents(std::vector<int> parents, const std::function<int(int)> &key) {
    Tree t;
    t.parent = std::move(parents);
    t.children.resize(t.parent.size());
    for (int v = 0; v < int(t.parent.size()); ++v) {
      if (t.parent[v] < 0) t.root = v;
      else t.children[t.parent[v]].push_back(v);
    }
    for (auto &kids : t.children)
      std::sort(kids.begin(), kids.end(), [&](int a, int b) { return key(a) < key(b); });
    return t;
  }

  /// Breadth-first order from the root: every node after its parent.
  std::vector<int> topDown() const {
    std::vector<int> order{root};
    for (size_t i = 0; i < order.size(); ++i)
      for (int child : children[order[i]]) order.push_back(child);
    return order;
  }
};

/// The step of the transfer over the edge (v, parent(v)) that carries chunk `chunk`.
using EdgeStep = std::function<int(int v, int chunk)>;

/// Step numbers of one tree: `down` for the broadcast edge parent -> v, `up` for the reduction
/// edge v -> parent; in an allreduce the broadcast's steps start at `downOffset`.
struct TreeSteps {
  EdgeStep down, up;
  int downOffset = 0;
};

/// Folds (chunk, slice) up `tree`; returns the full reduction at the root.
Value reduceUp(ScheduleBuilder &b, const Tree &tree, int chunk, int slice, const EdgeStep &up) {
  std::vector<int> order = tree.topDown();
  std::vector<Value> partial(tree.parent.size());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int v = *it;
    SmallVector<Value> operands{b.input(v, chunk, slice)};
    for (int child : tree.children[v]) operands.push_back(partial[child]);
    if (v == tree.root) {
      b.setStep(-1);
      return b.reduce(operands, v);
    }
    b.setStep(up(v, chunk));
    partial[v] = b.copy(b.reduce(operands, v), tree.parent[v]);
  }
  return {};
}

/// Copies `value` (at the root) down `tree`, binding it as (chunk, slice) on every rank.
void broadcastDown(ScheduleBuilder &b, const Tree &tree, Value value, int chunk, int slice,
                   const EdgeStep &down, int firstStep) {
  std::vector<Value> at(tree.parent.size());
  at[tree.root] = value;
  b.output(value, tree.root, chunk, slice);
  for (int v : tree.topDown()) {
    if (v == tree.root) continue;
    b.setStep(firstStep + down(v, chunk));
    at[v] = b.copy(at[tree.parent[v]], v);
    b.output(at[v], v, chunk, slice);
  }
  b.setStep(-1);
}

/// Lowers the spec's kind (broadcast, reduce or allreduce) for one slice: reductions go up
/// `upTree`, broadcasts down `downTree` (two trees with the same root).
void lowerOverTrees(ScheduleBuilder &b, const Tree &upTree, const Tree &downTree,
                    const TreeSteps &steps, int slice) {
  const CollectiveSpec &spec = b.spec();
  for (int c = 0; c < spec.chunks; ++c) {
    switch (spec.kind) {
    case CollectiveKind::Broadcast:
      broadcastDown(b, downTree, b.input(downTree.root, c, slice), c, slice, steps.down, 0);
      break;
    case CollectiveKind::Reduce:
      b.output(reduceUp(b, upTree, c, slice, steps.up), upTree.root, c, slice);
      break;
    default:
      broadcastDown(b, downTree, reduceUp(b, upTree, c, slice, steps.up), c, slice, steps.down,
                    steps.downOffset);
      break;
    }
  }
}

int lowestBitIndex(int v) {
  int i = 0;
  while (!(v & (1 << i))) ++i;
  return i;
}

/// The root of broadcast and reduce; allreduce roots its trees at rank 0.
int rootOf(const CollectiveSpec &spec) {
  return spec.kind == CollectiveKind::AllReduce ? 0 : spec.root;
}

// ---- binomial tree -------------------------------------------------------------------------

int highestBitIndex(int v) {
  int i = 0;
  while (v >> (i + 1)) ++i;
  return i;
}

/// Binomial trees over ranks relative to the root. The reduction uses MPICH's: the parent of
/// v clears v's lowest set bit, so v's subtree is [v, v + lowbit(v)) and every node folds its
/// own chunk and children v+1, v+2, v+4, ... in rank order; v sends in round log2 lowbit(v).
/// The broadcast doubles the distance: in round k every v < 2^k sends to v + 2^k (the parent of
/// v clears its highest set bit), so a node serves its children nearest first.
void buildBinomial(ScheduleBuilder &b, const AlgorithmParams &) {
  const CollectiveSpec &spec = b.spec();
  int n = spec.ranks, root = rootOf(spec), rounds = ceilLog2(n);
  auto relative = [&](int r) { return (r - root + n) % n; };
  auto absolute = [&](int v) { return (v + root) % n; };
  std::vector<int> upParents(n, -1), downParents(n, -1);
  for (int r = 0; r < n; ++r) {
    int v = relative(r);
    if (v == 0) continue;
    upParents[r] = absolute(v - (v & -v));
    downParents[r] = absolute(v - (1 << highestBitIndex(v)));
  }
  TreeSteps steps;
  steps.up = [&](int r, int) { return lowestBitIndex(relative(r)); };
  steps.down = [&](int r, int) { return highestBitIndex(relative(r)); };
  steps.downOffset = rounds;
  Tree up = Tree::fromParents(upParents, relative);
  Tree down = Tree::fromParents(downParents, relative);
  lowerOverTrees(b, up, down, steps, 0);
}

// ---- pipelined trees -----------------------------------------------------------------------

/// Pipelined steps over any tree for `chunks` chunks: a node sends chunk c to its j-th child in
/// step base(node) + c*k + j (k = the largest fan-out), and a child's base is one past the step
/// it first receives in, so every node sends and receives at most once per step. The reduction
/// is the broadcast mirrored in time (chunk 0 first); in an allreduce the root broadcasts chunk
/// c as soon as it has folded it, overlapping the reduction of the later chunks.
TreeSteps pipelinedSteps(const Tree &tree, int chunks) {
  size_t n = tree.parent.size();
  int period = 1;
  for (const auto &kids : tree.children) period = std::max(period, int(kids.size()));
  auto base = std::make_shared<std::vector<int>>(n, 0);
  int last = 0;  // the largest step of the broadcast
  for (int v : tree.topDown())
    for (size_t j = 0; j < tree.children[v].size(); ++j) {
      int child = tree.children[v][j];
      (*base)[child] = (*base)[v] + int(j) + 1;
      last = std::max(last, (*base)[child] - 1 + (chunks - 1) * period);
    }
  TreeSteps steps;
  steps.down = [base, period](int v, int chunk) { return (*base)[v] - 1 + chunk * period; };
  steps.up = [base, period, last, chunks](int v, int chunk) {
    return last - ((*base)[v] - 1 + (chunks - 1 - chunk) * period);
  };
  // The root has folded chunk c after step last - (chunks-1-c)*period: broadcast it next.
  steps.downOffset = last + 1 - (chunks - 1) * period;
  return steps;
}

/// A complete fan-out-k tree in heap order over ranks relative to the root.
Tree heapTree(int n, int root, int fanout) {
  auto relative = [&](int r) { return (r - root + n) % n; };
  std::vector<int> parents(n, -1);
  for (int r = 0; r < n; ++r) {
    int v = relative(r);
    if (v != 0) parents[r] = ((v - 1) / fanout + root) % n;
  }
  return Tree::fromParents(parents, relative);
}

void buildPipelinedTree(ScheduleBuilder &b, const AlgorithmParams &p) {
  const CollectiveSpec &spec = b.spec();
  Tree tree = heapTree(spec.ranks, rootOf(spec), p.getInt("fanout"));
  lowerOverTrees(b, tree, tree, pipelinedSteps(tree, spec.chunks), 0);
}

// ---- double binary tree --------------------------------------------------------------------

/// NCCL's in-order binary tree (ncclGetBtree): rank 0 is the root with one child; a rank's
/// level is its lowest set bit, so odd ranks are leaves.
int btreeParent(int rank, int n) {
  if (rank == 0) return -1;
  int bit = rank & -rank;
  int up = (rank ^ bit) | (bit << 1);
  return up < n ? up : rank ^ bit;
}

/// The two trees of NCCL's double binary tree (ncclGetDtree): the second is the first
/// mirrored (even N) or shifted by one (odd N), so the leaves of one are inner nodes of the
/// other and every rank sends and receives about one tree's worth of data.
std::array<Tree, 2> doubleBinaryTrees(int n) {
  std::vector<int> first(n), second(n);
  for (int r = 0; r < n; ++r) {
    first[r] = btreeParent(r, n);
    if (n % 2 == 0) {
      int up = btreeParent(n - 1 - r, n);
      second[r] = up < 0 ? -1 : n - 1 - up;
    } else {
      int up = btreeParent((r - 1 + n) % n, n);
      second[r] = up < 0 ? -1 : (up + 1) % n;
    }
  }
  auto byRank = [](int r) { return r; };
  return {Tree::fromParents(first, byRank), Tree::fromParents(second, byRank)};
}

/// Slice t of every chunk goes through tree t.
void buildDoubleBinaryTree(ScheduleBuilder &b, const AlgorithmParams &) {
  std::array<Tree, 2> trees = doubleBinaryTrees(b.ranks());
  for (int t = 0; t < 2; ++t) {
    b.setChannel(t);
    lowerOverTrees(b, trees[t], trees[t], pipelinedSteps(trees[t], b.spec().chunks), t);
  }
  b.setChannel(-1);
}

/// A heap-ordered fan-out-f tree, per pipeline chunk: the root sends to its children, an inner
/// rank to its parent and children (rank 1 has the most: min(f, N-1-f)); a reduction only up.
std::optional<int> pipelinedTreeMessages(const CollectiveSpec &s, const AlgorithmParams &p) {
  const int pipeline = p.getInt("pipeline"), fanout = p.getInt("fanout");
  const int rootChildren = std::min(fanout, s.ranks - 1);
  const int innerChildren = std::max(0, std::min(fanout, s.ranks - 1 - fanout));
  switch (s.kind) {
  case CollectiveKind::Reduce: return pipeline;
  case CollectiveKind::Broadcast: return pipeline * rootChildren;
  default: return pipeline * std::max(rootChildren, 1 + innerChildren);
  }
}

int pipelineChunks(const CollectiveSpec &, const AlgorithmParams &p) {
  return p.getInt("pipeline");
}

ParamSpec pipelineParam() {
  return intParam("pipeline", 4, 1, kMaxCount, "chunks the message is streamed in", "p");
}

}  // namespace

void registerTreeAlgorithms(AlgorithmRegistry &registry) {
  AlgorithmInfo binomial;
  binomial.name = "binomial-tree";
  binomial.summary = "binomial tree in ceil(log2 N) rounds (allreduce = reduce + broadcast)";
  binomial.kinds = {CollectiveKind::Broadcast, CollectiveKind::Reduce, CollectiveKind::AllReduce};
  binomial.chunks = [](const CollectiveSpec &, const AlgorithmParams &) { return 1; };
  binomial.build = buildBinomial;
  binomial.messages = [](const CollectiveSpec &s, const AlgorithmParams &) -> std::optional<int> {
    return s.kind == CollectiveKind::Reduce ? 1 : ceilLog2(s.ranks);
  };
  registry.add(binomial);

  AlgorithmInfo pipelined;
  pipelined.name = "pipelined-tree";
  pipelined.summary = "fan-out-k tree (binary by default) streaming the message in `pipeline` "
                      "chunks";
  pipelined.kinds = binomial.kinds;
  pipelined.params = {intParam("fanout", 2, 2, kMaxRanks, "children per tree node", "f"),
                      pipelineParam()};
  pipelined.chunks = pipelineChunks;
  pipelined.build = buildPipelinedTree;
  pipelined.messages = pipelinedTreeMessages;
  pipelined.tuning = {fixedAxis("fanout", {"2", "4"}, 1),
                      fixedAxis("pipeline", {"4", "2", "8"}, 1)};
  registry.add(std::move(pipelined));

  AlgorithmInfo dbt;
  dbt.name = "double-binary-tree";
  dbt.summary = "allreduce over two complementary binary trees, each carrying one half "
                "(slice) of every chunk, pipelined in `pipeline` chunks";
  dbt.kinds = {CollectiveKind::AllReduce};
  dbt.params = {pipelineParam()};
  // Every rank is inner in one tree (one up, two down) and a leaf of the other (one up), per
  // pipeline chunk; two and three ranks leave some of those edges out.
  dbt.messages = [](const CollectiveSpec &s, const AlgorithmParams &p) -> std::optional<int> {
    return p.getInt("pipeline") * std::min(s.ranks, 4);
  };
  dbt.chunks = pipelineChunks;
  dbt.slices = [](const CollectiveSpec &, const AlgorithmParams &) { return 2; };
  dbt.build = buildDoubleBinaryTree;
  dbt.ncclAlgorithm = "tree";  // NCCL's allreduce tree is this double binary tree
  dbt.tuning = {fixedAxis("pipeline", {"4", "2", "8"}, 1)};
  registry.add(std::move(dbt));
}

}  // namespace collplan
