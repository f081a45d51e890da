// synth: schedules derived from the topology's links rather than from a family. Every slice of
// every block travels on a spanning tree of its own over the ranks, and the trees are grown one
// after the other (then regrown on each other's loads) so that together they load each link in
// proportion to its bandwidth: greedy tree packing, the discrete form of the spanning-tree
// packing that reaches the cut bound (Edmonds; ForestColl). Allgather sends block r down its
// trees; reduce-scatter folds block r up them; allreduce folds chunk c up one forest to rank c
// and sends the sum down another; broadcast sends the root's message down its trees. Each peer
// pair gets channels of its own, and a list schedule of the links orders every channel. For
// small messages `latency` sends every block straight along its routes instead.
#include "compiler/lowering/Algorithms.h"

#include "runtime/topology/Generators.h"
#include "runtime/topology/Routing.h"
#include "runtime/topology/Topology.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <queue>
#include <tuple>

using namespace mlir;

namespace collplan {
namespace {

/// A spanning tree over the ranks: parent (-1 at the root), depth, and the ranks in the order
/// they joined (every parent before its children).
struct RankTree {
  int root = 0;
  std::vector<int> parent, depth, order;
};

/// The phases of a tree's messages: blocks and sums sent down from the root, folds sent up to
/// it. A phase indexes the forests and the pairs' colours.
constexpr int kDownPhase = 0, kUpPhase = 1;

/// The capacity slots of `topo` that messages load: each link direction (a half-duplex link's
/// two share one), then each device's memory path.
size_t capacitySlots(const Topology &topo) { return 2 * topo.links.size() + topo.devices.size(); }

/// Calls visit(slot, GB/s) for every capacity a message from rank `from` to rank `to` crosses:
/// its route's link directions, or its device's memory path.
template <typename Visit>
void forEachCapacity(const Topology &topo, RouteTable &routes, int from, int to, Visit visit) {
  if (topo.deviceOf(from) == topo.deviceOf(to)) {
    visit(2 * topo.links.size() + size_t(topo.deviceOf(from)),
          std::max(topo.intraDeviceBandwidthGBps, 1e-9));
    return;
  }
  for (const Hop &hop : routes.route(from, to)) {
    const Link &link = topo.links[size_t(hop.link)];
    visit(2 * size_t(hop.link) + (link.duplex && hop.reverse ? 1 : 0), link.bandwidthGBps);
  }
}

/// The ranks a tree edge may join: pairs whose route crosses no third rank's device, so a tree
/// relays at a rank where the route would pass through it anyway. Where that leaves a rank more
/// than kMaxPeers peers (ranks behind one switch), only ranks within kMaxPeers / 2 of each other
/// in rank order are joined: enough for the trees to balance every port, and few enough for a
/// channel of its own per peer.
class PeerGraph {
public:
  static constexpr int kMaxPeers = 8;

  PeerGraph(const Topology &topo, RouteTable &routes) : ranks_(topo.numRanks()) {
    joined_.assign(size_t(ranks_) * size_t(ranks_), false);
    int mostPeers = 0;
    for (int u = 0; u < ranks_; ++u) {
      int peers = 0;
      for (int v = 0; v < ranks_; ++v)
        if (u != v && routeAvoidsOtherRanks(topo, routes, u, v)) joined_[index(u, v)] = true, ++peers;
      mostPeers = std::max(mostPeers, peers);
    }
    if (mostPeers > kMaxPeers) keepNearInRankOrder();
  }
  /// Every pair joined: for latency trees, where a relay would add an op's hand-off to a path
  /// whose links a direct message crosses anyway.
  static PeerGraph everyPair(int ranks) {
    PeerGraph g(ranks);
    for (int u = 0; u < ranks; ++u)
      for (int v = 0; v < ranks; ++v) g.joined_[g.index(u, v)] = u != v;
    return g;
  }
  bool joins(int u, int v) const { return joined_[index(u, v)]; }

private:
  explicit PeerGraph(int ranks) : ranks_(ranks), joined_(size_t(ranks) * size_t(ranks), false) {}
  size_t index(int u, int v) const { return size_t(u) * size_t(ranks_) + size_t(v); }

  static bool routeAvoidsOtherRanks(const Topology &topo, RouteTable &routes, int u, int v) {
    const int from = topo.deviceOf(u), to = topo.deviceOf(v);
    if (from == to) return true;
    int at = from;
    for (const Hop &hop : routes.route(u, v)) {
      const Link &link = topo.links[size_t(hop.link)];
      at = hop.reverse ? link.a : link.b;
      const bool rankDevice = at < int(topo.devices.size()) && !topo.ranksOf(at).empty();
      if (at != to && rankDevice) return false;
    }
    return true;
  }

  /// Drops the pairs farther apart than kMaxPeers / 2 in rank order (cyclically), unless that
  /// would leave some rank unreachable.
  void keepNearInRankOrder() {
    std::vector<bool> near = joined_;
    for (int u = 0; u < ranks_; ++u)
      for (int v = 0; v < ranks_; ++v) {
        const int gap = (v - u + ranks_) % ranks_;
        if (std::min(gap, ranks_ - gap) > kMaxPeers / 2) near[index(u, v)] = false;
      }
    std::vector<bool> reached(size_t(ranks_), false);
    std::vector<int> stack{0};
    reached[0] = true;
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      for (int v = 0; v < ranks_; ++v)
        if (near[index(u, v)] && near[index(v, u)] && !reached[size_t(v)])
          reached[size_t(v)] = true, stack.push_back(v);
    }
    if (std::all_of(reached.begin(), reached.end(), [](bool r) { return r; })) joined_ = near;
  }

  int ranks_;
  std::vector<bool> joined_;
};

/// A tree edge's cost: the busiest link it would load, then all the links it loads.
struct EdgeCost {
  double worst = 0, total = 0;
  static constexpr double kTolerance = 1e-12;
  bool below(const EdgeCost &o) const {
    if (worst < o.worst - kTolerance) return true;
    if (worst > o.worst + kTolerance) return false;
    return total < o.total - kTolerance;
  }
  bool same(const EdgeCost &o) const { return !below(o) && !o.below(*this); }
};

/// The load of the link graph's directed capacities as trees are added, and the cost of a new
/// tree edge under it. A rank pair on one device uses the device's memory path.
class LinkLoads {
public:
  LinkLoads(const Topology &topo, RouteTable &routes)
      : topo_(topo), routes_(routes), load_(capacitySlots(topo), 0.0) {}

  /// What one more unit on tree edge u -> v costs in `phase` (down: u sends to v; up: v to u):
  /// the busiest link's load per GB/s once it crosses, and the sum of that over the route.
  EdgeCost cost(int u, int v, int phase) {
    EdgeCost c;
    forEdge(u, v, phase, [&](size_t slot, double gbps) {
      c.worst = std::max(c.worst, (load_[slot] + 1) / gbps);
      c.total += (load_[slot] + 1) / gbps;
    });
    return c;
  }
  void add(int u, int v, int phase, double units) {
    forEdge(u, v, phase, [&](size_t slot, double) { load_[slot] += units; });
  }
  /// Adds (or with -1, removes) every edge of `t`.
  void addTree(const RankTree &t, int phase, double units) {
    for (int v : t.order)
      if (v != t.root) add(t.parent[size_t(v)], v, phase, units);
  }

private:
  template <typename Visit>
  void forEdge(int u, int v, int phase, Visit visit) {
    if (phase == kDownPhase) forEachCapacity(topo_, routes_, u, v, visit);
    else forEachCapacity(topo_, routes_, v, u, visit);
  }

  const Topology &topo_;
  RouteTable &routes_;
  std::vector<double> load_;
};

RankTree emptyTree(int root, int ranks) {
  RankTree t;
  t.root = root;
  t.parent.assign(size_t(ranks), -1);
  t.depth.assign(size_t(ranks), 0);
  t.order.push_back(root);
  return t;
}

void attach(RankTree &t, int parent, int child) {
  t.parent[size_t(child)] = parent;
  t.depth[size_t(child)] = t.depth[size_t(parent)] + 1;
  t.order.push_back(child);
}

/// Grows the tree of `root` (Prim's order): the rank whose cheapest edge into the tree is
/// cheapest joins next, through that edge, which is then loaded. Costs only rise as edges are
/// added, so a candidate's remembered cost is re-checked when it comes up and taken when still
/// current. Ties go to the shallower parent, for latency.
RankTree growPackedTree(int root, int ranks, int phase, LinkLoads &loads, const PeerGraph &peers) {
  RankTree t = emptyTree(root, ranks);
  std::vector<bool> joined(size_t(ranks), false);
  const double never = std::numeric_limits<double>::infinity();
  std::vector<EdgeCost> best(size_t(ranks), EdgeCost{never, never});
  std::vector<int> via(size_t(ranks), -1);
  auto offer = [&](int u) {
    for (int v = 0; v < ranks; ++v) {
      if (joined[size_t(v)] || !peers.joins(u, v) || !peers.joins(v, u)) continue;
      const EdgeCost c = loads.cost(u, v, phase);
      const bool better = via[size_t(v)] < 0 || c.below(best[size_t(v)]) ||
                          (c.same(best[size_t(v)]) &&
                           t.depth[size_t(u)] < t.depth[size_t(via[size_t(v)])]);
      if (better) best[size_t(v)] = c, via[size_t(v)] = u;
    }
  };
  joined[size_t(root)] = true;
  offer(root);
  while (int(t.order.size()) < ranks) {
    int next = -1;
    for (int v = 0; v < ranks; ++v)
      if (!joined[size_t(v)] && via[size_t(v)] >= 0 &&
          (next < 0 || best[size_t(v)].below(best[size_t(next)])))
        next = v;
    const EdgeCost now = loads.cost(via[size_t(next)], next, phase);
    if (best[size_t(next)].below(now)) {  // its edge got busier since: look again
      best[size_t(next)] = now;
      continue;
    }
    loads.add(via[size_t(next)], next, phase, 1);
    joined[size_t(next)] = true;
    attach(t, via[size_t(next)], next);
    offer(next);
  }
  return t;
}

/// The latency of one message from u to v: its route's links, or the device's memory path.
double messageLatencyUs(const Topology &topo, RouteTable &routes, int u, int v) {
  if (topo.deviceOf(u) == topo.deviceOf(v)) return topo.intraDeviceLatencyUs;
  double us = 0;
  for (const Hop &hop : routes.route(u, v)) us += topo.links[size_t(hop.link)].latencyUs;
  return us;
}

/// The tree of `root` in which every rank's path from the root takes the least latency, then
/// the fewest relays (Dijkstra over the peer graph). Each relay costs a message's hand-off, so
/// a direct route beats an equally fast relayed one.
RankTree growShortestTree(int root, const Topology &topo, RouteTable &routes,
                          const PeerGraph &peers) {
  const int ranks = topo.numRanks();
  RankTree t = emptyTree(root, ranks);
  t.order.clear();
  using Key = std::pair<std::pair<double, int>, int>;  // ((latency, relays), rank)
  std::vector<std::pair<double, int>> dist(size_t(ranks),
                                           {std::numeric_limits<double>::infinity(), 0});
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> queue;
  std::vector<bool> done(size_t(ranks), false);
  dist[size_t(root)] = {0, 0};
  queue.push({dist[size_t(root)], root});
  while (!queue.empty()) {
    const int u = queue.top().second;
    queue.pop();
    if (done[size_t(u)]) continue;
    done[size_t(u)] = true;
    t.order.push_back(u);
    if (u != root) t.depth[size_t(u)] = t.depth[size_t(t.parent[size_t(u)])] + 1;
    for (int v = 0; v < ranks; ++v) {
      if (done[size_t(v)] || !peers.joins(u, v)) continue;
      const std::pair<double, int> through{
          dist[size_t(u)].first + messageLatencyUs(topo, routes, u, v), dist[size_t(u)].second + 1};
      if (through < dist[size_t(v)]) {
        dist[size_t(v)] = through;
        t.parent[size_t(v)] = u;
        queue.push({through, v});
      }
    }
  }
  return t;
}

/// Rounds of regrowing every packed tree on the loads all the others leave.
constexpr int kRegrowRounds = 3;

/// The topology the trees are grown on: the given one, or without one a switch of N ports.
const Topology &topologyFor(const AlgorithmParams &p, int ranks, Topology &fallback) {
  if (p.topology && p.topology->numRanks() == ranks) return *p.topology;
  fallback = switchTopology(ranks);
  return fallback;
}

int blocksOf(const CollectiveSpec &spec) {
  return spec.kind == CollectiveKind::Broadcast ? 1 : spec.ranks;
}

/// Trees of a call in all by default.
constexpr int kDefaultTrees = 256;

/// Trees per block: the `trees` parameter, or by default 256 trees in all over the blocks (at
/// least one per block): enough slices that a tree's pipeline fills in a small part of the call,
/// few enough that a plan of N ranks stays near 256 N ops per phase (N² past 256 ranks).
int treesPerBlock(const CollectiveSpec &spec, const AlgorithmParams &p) {
  if (p.getBool("latency")) return 1;
  const int trees = p.getInt("trees");
  return trees > 0 ? trees : std::max(kDefaultTrees / blocksOf(spec), 1);
}

int rootOfBlock(const CollectiveSpec &spec, int block) {
  return spec.kind == CollectiveKind::Broadcast ? spec.root : block;
}

/// Channel 0 runs the roots' last reductions (a channel of its own: on a pair's channel a fold
/// that waits for other channels' messages could hold that pair's later messages back); the
/// pairs' colours take the others.
constexpr int kFoldChannel = 0;
constexpr int kPairChannels = int(kMaxChannels) - 1;

/// Lanes per colour while colours x lanes fit the channels: two hide a message's latency behind
/// the next one's bytes; latency trees take every channel left, so that a rank posts its own
/// block and the ones it relays at once.
constexpr int kMaxLanes = 2;

/// The trees of a call, by phase (down: blocks and sums sent from the root; up: folds sent to
/// it; an allreduce has both, each packed for its own direction of the links), and the channel
/// of each rank pair they join. Block c is rooted at rank c (broadcast: the one block, at the
/// root); its slice s travels on its tree s mod perBlock.
struct Forest {
  int perBlock = 1;
  std::array<std::vector<RankTree>, 2> trees;  ///< [phase][c * perBlock + k]
  std::vector<int> colour;                     ///< colourPairs
  /// Channels per colour: a pair's messages take them in turn (by slice; latency trees, whose
  /// blocks have one slice, by block), so one message's latency overlaps the next one's bytes
  /// (a channel starts its next op only once the last has arrived).
  int lanes = 1;
  bool latencyTrees = false;  ///< one shortest-route tree per block: lanes go by block too

  const RankTree &tree(int phase, int block, int slice) const {
    return trees[size_t(phase)][size_t(block * perBlock + slice % perBlock)];
  }
  /// The channel of the message of block `block`, slice `slice` from `from` to `to` in `phase`:
  /// past kPairChannels colours and lanes wrap and share.
  int channelOf(int phase, int from, int to, int block, int slice, int ranks) const {
    const size_t n = size_t(ranks);
    const int c = colour[size_t(phase) * n * n + size_t(from) * n + size_t(to)];
    return 1 + (c * lanes + (latencyTrees ? block + slice : slice) % lanes) % kPairChannels;
  }
};

/// The phases a collective's data takes through its trees: down (allgather, broadcast), up
/// (reduce-scatter), or up then down (allreduce).
std::vector<int> phasesOf(CollectiveKind kind) {
  if (kind == CollectiveKind::ReduceScatter) return {kUpPhase};
  if (kind == CollectiveKind::AllReduce) return {kUpPhase, kDownPhase};
  return {kDownPhase};
}

/// `perBlock` trees for every block, packed together on the links `phase` loads.
std::vector<RankTree> packTrees(const CollectiveSpec &spec, int perBlock, int phase,
                                const Topology &topo, RouteTable &routes,
                                const PeerGraph &peers) {
  LinkLoads loads(topo, routes);
  const int blocks = blocksOf(spec);
  std::vector<RankTree> trees(size_t(blocks * perBlock));
  // Slice by slice: the trees that run in one step of the pipeline are grown next to each
  // other, so each step loads the links evenly, not only the whole call.
  for (int k = 0; k < perBlock; ++k)
    for (int c = 0; c < blocks; ++c)
      trees[size_t(c * perBlock + k)] =
          growPackedTree(rootOfBlock(spec, c), spec.ranks, phase, loads, peers);
  // Rip up and regrow: each tree grown again on the loads all the others leave, which evens out
  // what the first trees chose before the later ones were known.
  for (int round = 0; round < kRegrowRounds; ++round)
    for (int k = 0; k < perBlock; ++k)
      for (int c = 0; c < blocks; ++c) {
        RankTree &t = trees[size_t(c * perBlock + k)];
        loads.addTree(t, phase, -1);
        t = growPackedTree(t.root, spec.ranks, phase, loads, peers);
      }
  return trees;
}

/// Gives every ordered rank pair the trees join, in each phase it carries, a colour that no
/// other pair touching either rank has (a greedy edge colouring): a rank's messages to one peer
/// never wait behind those of another, nor an allreduce's sum on its way down behind a fold that
/// is not ready. Indexed [phase * N * N + from * N + to], -1 where no tree edge runs.
std::vector<int> colourPairs(const CollectiveSpec &spec, const Forest &forest) {
  const size_t n = size_t(spec.ranks);
  std::vector<bool> used(2 * n * n, false);
  for (int phase : phasesOf(spec.kind))
    for (const RankTree &t : forest.trees[size_t(phase)])
      for (int v : t.order)
        if (v != t.root) {
          const size_t parent = size_t(t.parent[size_t(v)]);
          used[size_t(phase) * n * n +
               (phase == kDownPhase ? parent * n + size_t(v) : size_t(v) * n + parent)] = true;
        }
  std::vector<int> colour(2 * n * n, -1);
  std::vector<std::vector<bool>> taken(n);
  for (size_t key = 0; key < used.size(); ++key) {
    if (!used[key]) continue;
    const size_t from = key % (n * n) / n, to = key % n;
    size_t c = 0;
    while ((c < taken[from].size() && taken[from][c]) || (c < taken[to].size() && taken[to][c]))
      ++c;
    for (size_t r : {from, to}) {
      if (taken[r].size() <= c) taken[r].resize(c + 1, false);
      taken[r][c] = true;
    }
    colour[key] = int(c);
  }
  return colour;
}

Forest forestFor(const CollectiveSpec &spec, const AlgorithmParams &p, const Topology &topo,
                 RouteTable &routes) {
  const PeerGraph peers =
      p.getBool("latency") ? PeerGraph::everyPair(topo.numRanks()) : PeerGraph(topo, routes);
  Forest forest;
  forest.perBlock = treesPerBlock(spec, p);
  forest.latencyTrees = p.getBool("latency");
  for (int phase : phasesOf(spec.kind)) {
    if (!p.getBool("latency")) {
      forest.trees[size_t(phase)] = packTrees(spec, forest.perBlock, phase, topo, routes, peers);
      continue;
    }
    for (int c = 0; c < blocksOf(spec); ++c)
      forest.trees[size_t(phase)].push_back(
          growShortestTree(rootOfBlock(spec, c), topo, routes, peers));
  }
  forest.colour = colourPairs(spec, forest);
  const int colours = 1 + *std::max_element(forest.colour.begin(), forest.colour.end());
  forest.lanes = std::clamp(kPairChannels / std::max(colours, 1), 1,
                            p.getBool("latency") ? kPairChannels : kMaxLanes);
  return forest;
}

/// The order in which the links carry a call's messages, and so the order of every channel.
/// Messages down the trees follow a list schedule: each (one unit) is sent once its parent's
/// message is in, on its sender's channel and its route's links as soon as they are free,
/// earliest-ready first, a link moving units at its bandwidth. Messages up the trees follow the
/// same schedule run backwards in time: a fold up a tree is a send down it reversed, so the
/// list schedule of the reversed messages (each on the links it really crosses), read from its
/// end, is a schedule of the folds as tight as the sends' (ForestColl builds reduce-scatter the
/// same way from allgather). An allreduce's sums go down after the folds in step order; they run
/// on channels of their own, so the order only says which comes first on each. A message's step
/// is its place in the order, so no channel holds a message that is not ready ahead of one that
/// is (the port model's one message per rank and round would serialise a rank's ports).
class LinkSchedule {
public:
  LinkSchedule(const CollectiveSpec &spec, const Forest &forest, const Topology &topo,
               RouteTable &routes)
      : spec_(spec), forest_(forest), topo_(topo), routes_(routes),
        rootReady_(size_t(blocksOf(spec)) * size_t(spec.slices), 0.0) {
    step_.assign(size_t(blocksOf(spec)) * size_t(spec.slices) * size_t(spec.ranks) * 2, -1);
    int next = 0;
    for (int phase : phasesOf(spec.kind)) next = schedulePhase(phase, next);  // up first
  }
  /// The step of slice `slice`'s message of block `block` into `rank` (down) or out of it (up).
  int step(int block, int slice, int rank, int phase) const {
    return step_[key(block, slice, rank, phase)];
  }

private:
  struct Message {
    int block, slice, rank;  ///< the message into `rank` (down) or out of it (up)
    int pending = 0;         ///< messages it waits for, not yet scheduled
    double ready = 0;        ///< when the last of them has arrived
    std::vector<int> next;   ///< messages that wait for it
  };

  size_t key(int block, int slice, int rank, int phase) const {
    return ((size_t(block) * size_t(spec_.slices) + size_t(slice)) * size_t(spec_.ranks) +
            size_t(rank)) * 2 + size_t(phase);
  }
  /// A message into every non-root rank of every tree of `phase`, each waiting for its
  /// parent's.
  std::vector<Message> messages(int phase) const {
    auto treeOf = [&](int block, int slice) -> const RankTree & {
      return forest_.tree(phase, block, slice);
    };
    std::vector<Message> all;
    std::vector<int> id(step_.size(), -1);
    for (int c = 0; c < blocksOf(spec_); ++c)
      for (int s = 0; s < spec_.slices; ++s)
        for (int v = 0; v < spec_.ranks; ++v)
          if (v != treeOf(c, s).root) {
            id[key(c, s, v, 0)] = int(all.size());
            all.push_back(Message{c, s, v});
          }
    for (int m = 0; m < int(all.size()); ++m) {
      const Message msg = all[size_t(m)];
      const RankTree &t = treeOf(msg.block, msg.slice);
      const int parent = t.parent[size_t(msg.rank)];
      if (parent == t.root) continue;
      all[size_t(id[key(msg.block, msg.slice, parent, 0)])].next.push_back(m);
      ++all[size_t(m)].pending;
    }
    return all;
  }

  /// Sends `msg` no earlier than `ready` on its channel and links; returns its start and its
  /// arrival.
  std::pair<double, double> send(const Message &msg, int phase, double ready) {
    const int parent = forest_.tree(phase, msg.block, msg.slice).parent[size_t(msg.rank)];
    const int from = phase == kDownPhase ? parent : msg.rank;
    const int to = phase == kDownPhase ? msg.rank : parent;
    const int channel = forest_.channelOf(phase, from, to, msg.block, msg.slice, spec_.ranks);
    double &sender = engineFree_[size_t(from) * kMaxChannels + size_t(channel)];
    // The message starts once its channel and every capacity on its route are free, and holds
    // them all for one unit at the narrowest one's bandwidth.
    double start = std::max(ready, sender), duration = 0;
    route_.clear();
    forEachCapacity(topo_, routes_, from, to, [&](size_t slot, double gbps) {
      route_.push_back(slot);
      start = std::max(start, linkFree_[slot]);
      duration = std::max(duration, 1 / gbps);
    });
    const double arrives = start + duration;
    for (size_t slot : route_) linkFree_[slot] = arrives;
    sender = arrives;
    return {start, arrives};
  }

  /// List-schedules `phase`'s messages as sends down the trees and numbers them from `first`:
  /// down in order of sending, up in reverse order of arrival. Returns the next free step.
  int schedulePhase(int phase, int first) {
    engineFree_.assign(size_t(spec_.ranks) * kMaxChannels, 0.0);
    linkFree_.assign(capacitySlots(topo_), 0.0);
    std::vector<Message> all = messages(phase);
    using Entry = std::tuple<double, int, int>;  // ready, slice, message
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
    for (int m = 0; m < int(all.size()); ++m)
      if (all[size_t(m)].pending == 0) {
        Message &msg = all[size_t(m)];
        msg.ready = rootReady_[size_t(msg.block) * size_t(spec_.slices) + size_t(msg.slice)];
        ready.push({msg.ready, msg.slice, m});
      }
    std::vector<std::pair<double, int>> order;  // start (down) or -arrival (up), message
    std::vector<double> started(all.size(), 0);
    const bool reversed = phase == kUpPhase;
    double end = 0;
    while (!ready.empty()) {
      const auto [when, slice, m] = ready.top();
      ready.pop();
      const auto [start, arrives] = send(all[size_t(m)], phase, when);
      started[size_t(m)] = start;
      end = std::max(end, arrives);
      order.push_back({reversed ? -arrives : start, m});
      for (int w : all[size_t(m)].next) {
        Message &waiter = all[size_t(w)];
        waiter.ready = std::max(waiter.ready, arrives);
        if (--waiter.pending == 0) ready.push({waiter.ready, waiter.slice, w});
      }
    }
    // Run backwards, an up message into the root arrives at end - its start here: the root's
    // sum is ready once the last one has.
    if (reversed)
      for (int m = 0; m < int(all.size()); ++m) {
        const Message &msg = all[size_t(m)];
        const RankTree &t = forest_.tree(phase, msg.block, msg.slice);
        if (t.parent[size_t(msg.rank)] != t.root) continue;
        double &sum = rootReady_[size_t(msg.block) * size_t(spec_.slices) + size_t(msg.slice)];
        sum = std::max(sum, end - started[size_t(m)]);
      }
    std::stable_sort(order.begin(), order.end());
    for (const auto &[time, m] : order) {
      const Message &msg = all[size_t(m)];
      step_[key(msg.block, msg.slice, msg.rank, phase)] = first++;
    }
    return first;
  }

  const CollectiveSpec &spec_;
  const Forest &forest_;
  const Topology &topo_;
  RouteTable &routes_;
  std::vector<double> engineFree_;  ///< per rank and channel: when its last message arrived
  std::vector<double> linkFree_;    ///< per capacity slot
  std::vector<size_t> route_;       ///< the slots of the message being sent (reused)
  /// Per block and slice: when its fold reaches the root, the up schedule read backwards (0
  /// without one), which is when its sum may start down.
  std::vector<double> rootReady_;
  std::vector<int> step_;
};

/// Emits the copies of the trees with their channels and their steps in the link schedule.
class TreeEmitter {
public:
  TreeEmitter(ScheduleBuilder &b, const Forest &forest, const LinkSchedule &order)
      : b_(b), forest_(forest), order_(order) {}

  /// Sends slice `slice` of block `block`'s `value` (held at the tree's root) down its tree.
  /// Returns every rank's copy, by rank.
  std::vector<Value> sendDown(int block, int slice, Value value) {
    const RankTree &t = forest_.tree(kDownPhase, block, slice);
    std::vector<Value> at(t.parent.size());
    at[size_t(t.root)] = value;
    for (int v : t.order) {
      if (v == t.root) continue;
      const int parent = t.parent[size_t(v)];
      b_.setStep(order_.step(block, slice, v, kDownPhase));
      useChannel(kDownPhase, parent, v, block, slice);
      at[size_t(v)] = b_.copy(at[size_t(parent)], v);
    }
    b_.setStep(-1);
    b_.setChannel(-1);
    return at;
  }

  /// Folds slice `slice` of block `block`'s `operand(rank)` up its tree to the root: each rank
  /// reduces its own operand with its children's partial sums (own first, then children in the
  /// order they joined) and sends the result to its parent. Returns the root's total.
  Value foldUp(int block, int slice, const std::function<Value(int)> &operand) {
    const RankTree &t = forest_.tree(kUpPhase, block, slice);
    std::vector<SmallVector<Value>> partials(t.parent.size());
    for (auto it = t.order.rbegin(); it != t.order.rend(); ++it) {
      const int v = *it;
      SmallVector<Value> fold{operand(v)};
      fold.append(partials[size_t(v)].begin(), partials[size_t(v)].end());
      // The reduction runs on the channel of the message it feeds, where it becomes one
      // reduce-send; the root's on the fold channel.
      const int parent = t.parent[size_t(v)];
      b_.setStep(-1);
      if (v != t.root) useChannel(kUpPhase, v, parent, block, slice);
      else b_.setChannel(kFoldChannel);
      Value sum = fold.size() == 1 ? fold.front() : b_.reduce(fold, v);
      if (v == t.root) {
        b_.setChannel(-1);
        return sum;
      }
      b_.setStep(order_.step(block, slice, v, kUpPhase));
      partials[size_t(parent)].push_back(b_.copy(sum, parent));
    }
    return Value();
  }

private:
  void useChannel(int phase, int from, int to, int block, int slice) {
    b_.setChannel(forest_.channelOf(phase, from, to, block, slice, b_.spec().ranks));
  }

  ScheduleBuilder &b_;
  const Forest &forest_;
  const LinkSchedule &order_;
};

/// Whether `p` asks for an allreduce by latency trees: one exchange, buildDirectAllReduce.
bool directAllReduce(const CollectiveSpec &spec, const AlgorithmParams &p) {
  return spec.kind == CollectiveKind::AllReduce && p.getBool("latency");
}

/// An allreduce for small messages: every rank's input sent straight to every other rank, all
/// at once, and each rank folding the N inputs in rank order, so every rank computes the same
/// sum bit for bit: one path's latency, where folding up a tree and sending the sum back down it
/// takes two.
void buildDirectAllReduce(ScheduleBuilder &b, const Forest &forest) {
  const int ranks = b.spec().ranks;
  std::vector<Value> inputs;
  for (int q = 0; q < ranks; ++q) inputs.push_back(b.input(q, 0, 0));
  for (int r = 0; r < ranks; ++r) {
    SmallVector<Value> operands;
    for (int q = 0; q < ranks; ++q) {
      if (q == r) {
        operands.push_back(inputs[size_t(q)]);
        continue;
      }
      b.setStep(0);
      b.setChannel(forest.channelOf(kDownPhase, q, r, q, 0, ranks));
      operands.push_back(b.copy(inputs[size_t(q)], r));
    }
    b.setStep(-1);
    b.setChannel(kFoldChannel);
    b.output(b.reduce(operands, r), r, 0, 0);
  }
  b.setChannel(-1);
}

void buildSynth(ScheduleBuilder &b, const AlgorithmParams &p) {
  const CollectiveSpec &spec = b.spec();
  Topology fallback;
  const Topology &topo = topologyFor(p, spec.ranks, fallback);
  RouteTable routes(topo);
  const Forest forest = forestFor(spec, p, topo, routes);
  b.keepOwnSteps();
  if (directAllReduce(spec, p)) return buildDirectAllReduce(b, forest);
  const LinkSchedule order(spec, forest, topo, routes);
  TreeEmitter emit(b, forest, order);
  // Slice s of block c travels on the block's tree s mod perBlock.
  for (int s = 0; s < spec.slices; ++s) {
    switch (spec.kind) {
    case CollectiveKind::Broadcast: {
      const std::vector<Value> at = emit.sendDown(0, s, b.input(spec.root, 0, s));
      for (int r = 0; r < spec.ranks; ++r) b.output(at[size_t(r)], r, 0, s);
      break;
    }
    case CollectiveKind::AllGather:
      for (int owner = 0; owner < spec.ranks; ++owner) {
        const std::vector<Value> at = emit.sendDown(owner, s, b.input(owner, 0, s));
        for (int r = 0; r < spec.ranks; ++r) b.output(at[size_t(r)], r, owner, s);
      }
      break;
    case CollectiveKind::ReduceScatter:
      for (int owner = 0; owner < spec.ranks; ++owner) {
        const Value sum = emit.foldUp(owner, s, [&](int r) { return b.input(r, owner, s); });
        b.output(sum, owner, 0, s);
      }
      break;
    default:  // allreduce: chunk c folded up its tree to rank c, then sent back down it
      for (int c = 0; c < spec.chunks; ++c) {
        const Value sum = emit.foldUp(c, s, [&](int r) { return b.input(r, c, s); });
        const std::vector<Value> at = emit.sendDown(c, s, sum);
        for (int r = 0; r < spec.ranks; ++r) b.output(at[size_t(r)], r, c, s);
      }
      break;
    }
  }
}

/// The busiest rank's messages: one per tree edge it sends on (down: to each child; up: to its
/// parent; allreduce both), for every slice.
std::optional<int> synthMessages(const CollectiveSpec &spec, const AlgorithmParams &p) {
  if (directAllReduce(spec, p)) return spec.ranks - 1;
  Topology fallback;
  const Topology &topo = topologyFor(p, spec.ranks, fallback);
  RouteTable routes(topo);
  const Forest forest = forestFor(spec, p, topo, routes);
  std::vector<int> sends(size_t(spec.ranks), 0);
  for (int phase : phasesOf(spec.kind))
    for (const RankTree &t : forest.trees[size_t(phase)])
      for (int v = 0; v < spec.ranks; ++v)
        if (v != t.root) ++sends[size_t(phase == kDownPhase ? t.parent[size_t(v)] : v)];
  return *std::max_element(sends.begin(), sends.end());
}

}  // namespace

void registerSynthAlgorithms(AlgorithmRegistry &registry) {
  AlgorithmInfo synth;
  synth.name = "synth";
  synth.summary = "trees derived from the topology's links, packed so that together they load "
                  "each link by its bandwidth (one per slice of a block, pipelined), or for small "
                  "messages every block straight along its shortest routes";
  synth.kinds = {CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
                 CollectiveKind::AllReduce, CollectiveKind::Broadcast};
  synth.params = {
      intParam("trees", 0, 0, 256,
               "trees per block, each carrying one slice of it, grown on the links the earlier "
               "trees left least busy (0: 256 over the blocks, at least one per block)"),
      boolParam("latency", false,
                "small messages: every block sent straight along its shortest routes, all at "
                "once (allreduce: every input to every rank, folded in rank order)")};
  synth.chunks = [](const CollectiveSpec &spec, const AlgorithmParams &p) {
    return spec.kind == CollectiveKind::AllReduce && !directAllReduce(spec, p) ? spec.ranks : 1;
  };
  synth.slices = [](const CollectiveSpec &spec, const AlgorithmParams &p) {
    return treesPerBlock(spec, p);
  };
  synth.pipelinesItself = true;
  synth.build = buildSynth;
  synth.messages = synthMessages;
  synth.tuning = {fixedAxis("latency", {"false", "true"}, 2),
                  fixedAxis("trees", {"0", "16"}, 1)};
  registry.add(std::move(synth));
}

}  // namespace collplan
