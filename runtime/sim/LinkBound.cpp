// The link term of the lower bound: for each collective, the cut of the link graph whose
// capacity is smallest for the data that must cross it, found with max-flow (ForestColl, Blink).
#include "runtime/sim/LinkBound.h"

#include "runtime/core/CountNoun.h"
#include "runtime/topology/MaxFlow.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace collplan {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The link graph as a flow network: the topology's vertices, then an added source and sink
/// joined to every device by edges whose capacities each query sets. A link is an arc each way
/// at its bandwidth (bytes/µs); a half-duplex link too, which only loosens the bound. Since every
/// link carries the same bandwidth both ways, the capacity out of a vertex set equals the
/// capacity into it: the bounds of data leaving a set (reduce-scatter, reduce, scatter) are those
/// of data entering it.
struct FlowNetwork {
  MaxFlow graph;
  int source = 0, sink = 0;
  int linkEdges = 0;  ///< edges 0..linkEdges-1 are the links' arcs
  std::vector<int> sourceEdge, sinkEdge;  ///< per device
  double infinite = 0;  ///< more than every link together: a cut never crosses such an edge
};

FlowNetwork buildNetwork(const Topology &topo) {
  FlowNetwork net;
  net.graph = MaxFlow(topo.numVertices() + 2);
  double total = 0;
  for (const Link &link : topo.links) {
    const double capacity = link.bandwidthGBps * 1e3;
    net.graph.addEdge(link.a, link.b, capacity);
    net.graph.addEdge(link.b, link.a, capacity);
    total += 2 * capacity;
  }
  net.linkEdges = net.graph.numEdges();
  net.source = topo.numVertices();
  net.sink = net.source + 1;
  net.infinite = 4 * total + 1;
  for (int d = 0; d < int(topo.devices.size()); ++d) {
    net.sourceEdge.push_back(net.graph.addEdge(net.source, d, 0));
    net.sinkEdge.push_back(net.graph.addEdge(d, net.sink, 0));
  }
  return net;
}

/// The capacity of the links from vertices with outside[v] to vertices without.
double linkCapacityInto(const FlowNetwork &net, const std::vector<bool> &outside) {
  double total = 0;
  for (int e = 0; e < net.linkEdges; ++e)
    if (outside[size_t(net.graph.from(e))] && !outside[size_t(net.graph.to(e))])
      total += net.graph.capacity(e);
  return total;
}

int linksInto(const FlowNetwork &net, const std::vector<bool> &outside) {
  int count = 0;
  for (int e = 0; e < net.linkEdges; ++e)
    count += outside[size_t(net.graph.from(e))] && !outside[size_t(net.graph.to(e))];
  return count;
}

std::vector<int> rankedDevices(const Topology &topo) {
  std::vector<int> devices;
  for (int d = 0; d < int(topo.devices.size()); ++d)
    if (!topo.devices[size_t(d)].ranks.empty()) devices.push_back(d);
  return devices;
}

/// At most kMaxExactBoundDevices of `items`, evenly spaced; `sampled` set when some were left.
std::vector<int> sample(const std::vector<int> &items, bool &sampled) {
  if (items.size() <= size_t(kMaxExactBoundDevices)) return items;
  sampled = true;
  std::vector<int> kept;
  for (int k = 0; k < kMaxExactBoundDevices; ++k)
    kept.push_back(items[items.size() * size_t(k) / size_t(kMaxExactBoundDevices)]);
  return kept;
}

/// "device 'c0'", "3 devices ('c0', 'c1', 'c2')", "40 devices ('a', 'b', 'c', ...)", with
/// " and 2 switches" when the set holds switches.
std::string describeDevices(const Topology &topo, const std::vector<bool> &outside) {
  std::vector<std::string> names;
  for (size_t d = 0; d < topo.devices.size(); ++d)
    if (!outside[d]) names.push_back("'" + topo.devices[d].name + "'");
  int switches = 0;
  for (int v = int(topo.devices.size()); v < topo.numVertices(); ++v)
    switches += outside[size_t(v)] ? 0 : 1;
  const std::string withSwitches = switches == 0   ? ""
                                   : switches == 1 ? " and 1 switch"
                                                   : " and " + std::to_string(switches) + " switches";
  if (names.size() == 1) return "device " + names[0] + withSwitches;
  std::string text = std::to_string(names.size()) + " devices (";
  for (size_t k = 0; k < names.size() && k < 3; ++k) text += (k ? ", " : "") + names[k];
  return text + (names.size() > 3 ? ", ...)" : ")") + withSwitches;
}

std::string gbps(double bytesPerUs) {
  std::ostringstream out;
  out << bytesPerUs / 1e3 << " GB/s";
  return out.str();
}

/// "the 4 links into device 'c0' (640 GB/s) carry", "the link into ... carries".
std::string describeCut(const Topology &topo, const FlowNetwork &net,
                        const std::vector<bool> &outside) {
  const int links = linksInto(net, outside);
  return (links == 1 ? std::string("the link") : "the " + std::to_string(links) + " links") +
         " into " + describeDevices(topo, outside) + " (" + gbps(linkCapacityInto(net, outside)) +
         (links == 1 ? ") carries" : ") carry");
}

/// The least ratio, over vertex sets S holding one of `sinks`, of the link capacity into S to
/// the weight of the devices outside S: the most weight per µs every such S can take in.
struct CutRatio {
  double ratio = kInf;
  std::vector<bool> outside;  ///< over the network's vertices
};

void setTerminals(FlowNetwork &net, const std::vector<double> &sourceCap,
                  const std::vector<double> &sinkCap) {
  for (size_t d = 0; d < net.sourceEdge.size(); ++d) {
    net.graph.setCapacity(net.sourceEdge[d], sourceCap[d]);
    net.graph.setCapacity(net.sinkEdge[d], sinkCap[d]);
  }
}

/// Each sink alone: the starting point of the iteration below (any cut's ratio is >= the least).
CutRatio singletonRatio(const FlowNetwork &net, const std::vector<double> &weight,
                        const std::vector<int> &sinks, double total) {
  CutRatio best;
  for (int v : sinks) {
    if (total - weight[size_t(v)] <= 0) continue;
    std::vector<bool> outside(size_t(net.graph.numVertices()), true);
    outside[size_t(v)] = false;
    const double ratio = linkCapacityInto(net, outside) / (total - weight[size_t(v)]);
    if (ratio < best.ratio) best = CutRatio{ratio, outside};
  }
  return best;
}

/// Dinkelbach's iteration (ForestColl's test as a parametric search): for a rate x, every set S
/// holding sink v satisfies cap_in(S) >= x · weight(outside S) exactly when the max flow into v,
/// from a source feeding each device x · its weight, is x · total. A shortfall's min cut is a
/// set of smaller ratio; x drops to it until no sink falls short, which is then the least ratio.
CutRatio minCutRatio(FlowNetwork &net, const std::vector<double> &weight,
                     const std::vector<int> &sinks) {
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  CutRatio best = singletonRatio(net, weight, sinks, total);
  const std::vector<double> noSink(weight.size(), 0);
  for (int pass = 0; pass < 64 && std::isfinite(best.ratio); ++pass) {
    bool improved = false;
    for (int v : sinks) {
      if (total - weight[size_t(v)] <= 0) continue;
      std::vector<double> feed(weight.size());
      for (size_t d = 0; d < weight.size(); ++d) feed[d] = best.ratio * weight[d];
      setTerminals(net, feed, noSink);
      if (net.graph.run(net.source, v) >= best.ratio * total * (1 - 1e-9)) continue;
      const std::vector<bool> &outside = net.graph.sourceSide();
      double inside = 0;
      for (size_t d = 0; d < weight.size(); ++d) inside += outside[d] ? 0 : weight[d];
      if (total - inside <= 0) continue;
      const double ratio = linkCapacityInto(net, outside) / (total - inside);
      if (ratio < best.ratio * (1 - 1e-12)) {
        best = CutRatio{ratio, outside};
        improved = true;
      }
    }
    if (!improved) break;
  }
  return best;
}

std::vector<double> ranksPerDevice(const Topology &topo) {
  std::vector<double> weight;
  for (const Device &d : topo.devices) weight.push_back(double(d.ranks.size()));
  return weight;
}

/// Allgather, reduce-scatter (the same cuts, data leaving instead of entering), gather and
/// scatter (only sets holding the root's device): the blocks of the ranks outside S must cross
/// into (out of) S, M/N bytes each.
LinkBound blockCutBound(const Topology &topo, const std::vector<int> &sinks, bool sampled) {
  FlowNetwork net = buildNetwork(topo);
  const CutRatio cut = minCutRatio(net, ranksPerDevice(topo), sinks);
  if (!std::isfinite(cut.ratio) || cut.ratio <= 0) return LinkBound{0, "", sampled};
  double outsideRanks = 0;
  for (size_t d = 0; d < topo.devices.size(); ++d)
    outsideRanks += cut.outside[d] ? double(topo.devices[d].ranks.size()) : 0;
  return LinkBound{1.0 / (double(topo.numRanks()) * cut.ratio),
                   describeCut(topo, net, cut.outside) + " the blocks of the " +
                       countNoun(int(outsideRanks), "rank") + " outside",
                   sampled};
}

/// Broadcast (and reduce, the same cuts the other way): every set holding ranks but not the
/// root's device takes in the whole message.
LinkBound rootCutBound(const Topology &topo, int root) {
  bool sampled = false;
  const int rootDevice = topo.deviceOf(root);
  std::vector<int> sinks;
  for (int d : rankedDevices(topo))
    if (d != rootDevice) sinks.push_back(d);
  FlowNetwork net = buildNetwork(topo);
  std::vector<double> weight(topo.devices.size(), 0);
  weight[size_t(rootDevice)] = 1;
  const CutRatio cut = minCutRatio(net, weight, sample(sinks, sampled));
  if (!std::isfinite(cut.ratio) || cut.ratio <= 0) return LinkBound{0, "", sampled};
  return LinkBound{1.0 / cut.ratio,
                   describeCut(topo, net, cut.outside) + " the whole message from root " +
                       std::to_string(root),
                   sampled};
}

/// The least link capacity into any vertex set holding the devices of `group` and no other
/// device with ranks: the max flow from the other ranked devices into the group.
double groupCutInto(FlowNetwork &net, const Topology &topo, const std::vector<bool> &inGroup) {
  std::vector<double> sourceCap(topo.devices.size(), 0), sinkCap(topo.devices.size(), 0);
  for (size_t d = 0; d < topo.devices.size(); ++d) {
    if (inGroup[d]) sinkCap[d] = net.infinite;
    else if (!topo.devices[d].ranks.empty()) sourceCap[d] = net.infinite;
  }
  setTerminals(net, sourceCap, sinkCap);
  return net.graph.run(net.source, net.sink);
}

/// Devices grouped by Device::node (only nodes with ranks), or one group per ranked device.
std::vector<std::vector<bool>> groupsOf(const Topology &topo, bool byNode) {
  std::vector<std::vector<bool>> groups;
  std::vector<int> keys;
  for (int d : rankedDevices(topo)) {
    const int key = byNode ? topo.devices[size_t(d)].node : d;
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      groups.emplace_back(topo.devices.size(), false);
      it = keys.end() - 1;
    }
    groups[size_t(it - keys.begin())][size_t(d)] = true;
  }
  return groups;
}

int ranksIn(const Topology &topo, const std::vector<bool> &group) {
  int ranks = 0;
  for (size_t d = 0; d < topo.devices.size(); ++d)
    ranks += group[d] ? int(topo.devices[d].ranks.size()) : 0;
  return ranks;
}

/// All-to-all: a set S holding r of the N ranks takes in r (N - r) blocks. The sets tried are
/// each device and each node with the least capacity into them (the sparsest cut itself is hard
/// to find; any set tried gives a true bound).
LinkBound allToAllBound(const Topology &topo) {
  FlowNetwork net = buildNetwork(topo);
  const int n = topo.numRanks();
  LinkBound best;
  for (bool byNode : {false, true}) {
    std::vector<std::vector<bool>> groups = groupsOf(topo, byNode);
    std::vector<int> index(groups.size());
    std::iota(index.begin(), index.end(), 0);
    for (int g : sample(index, best.sampled)) {
      const int r = ranksIn(topo, groups[size_t(g)]);
      if (r == n) continue;
      const double capacity = groupCutInto(net, topo, groups[size_t(g)]);
      if (capacity <= 0) continue;
      const double usPerByte = double(r) * double(n - r) / double(n) / capacity;
      if (usPerByte <= best.usPerByte) continue;
      best.usPerByte = usPerByte;
      best.cut = describeCut(topo, net, net.graph.sourceSide()) + " " + std::to_string(r) + " x " +
                 std::to_string(n - r) + " blocks";
    }
  }
  return best;
}

/// Allreduce, cut argument: a set S holding some ranks but not all takes in the reduction of
/// the rest, M bytes, however reduced. The least cut among ranked devices bounds it.
LinkBound allReduceCutBound(const Topology &topo) {
  LinkBound best;
  std::vector<int> devices = rankedDevices(topo);
  if (devices.size() < 2) return best;
  FlowNetwork net = buildNetwork(topo);
  const std::vector<double> none(topo.devices.size(), 0);
  std::vector<int> others(devices.begin() + 1, devices.end());
  for (int v : sample(others, best.sampled)) {
    std::vector<double> feed = none;
    feed[size_t(devices[0])] = net.infinite;
    std::vector<double> drain = none;
    drain[size_t(v)] = net.infinite;
    setTerminals(net, feed, drain);
    const double capacity = net.graph.run(net.source, net.sink);
    if (capacity <= 0 || 1.0 / capacity <= best.usPerByte) continue;
    best.usPerByte = 1.0 / capacity;
    best.cut = describeCut(topo, net, net.graph.sourceSide()) +
               " the whole reduced message (every part of it needs data from outside)";
  }
  return best;
}

/// Allreduce, volume argument (directed gossip): among g groups of ranks, each element needs at
/// least 2 (g - 1) transfers between groups (g - 1 to combine, g - 1 to spread), each entering
/// some group, whose capacity in is at least its least cut: time >= 2 (g - 1) M / Σ cut_in.
/// Groups: the devices, and the nodes. Past kMaxExactBoundDevices groups a group's cut is the
/// capacity of the links into its own devices (at least its least cut: the bound holds).
LinkBound allReduceVolumeBound(const Topology &topo, bool byNode) {
  LinkBound bound;
  std::vector<std::vector<bool>> groups = groupsOf(topo, byNode);
  if (groups.size() < 2) return bound;
  FlowNetwork net = buildNetwork(topo);
  const bool exact = groups.size() <= size_t(kMaxExactBoundDevices);
  bound.sampled = !exact;
  double capacity = 0;
  for (const std::vector<bool> &group : groups) {
    if (exact) {
      capacity += groupCutInto(net, topo, group);
      continue;
    }
    std::vector<bool> outside(size_t(net.graph.numVertices()), true);
    for (size_t d = 0; d < group.size(); ++d) outside[d] = !group[d];
    capacity += linkCapacityInto(net, outside);
  }
  if (capacity <= 0) return bound;
  const double transfers = 2.0 * double(groups.size() - 1);
  bound.usPerByte = transfers / capacity;
  bound.cut = std::to_string(int(transfers)) + " transfers of every element between the " +
              std::to_string(groups.size()) + (byNode ? " nodes" : " devices") +
              " (reduce, then spread), " + gbps(capacity) + " into them in all";
  return bound;
}

LinkBound larger(LinkBound a, const LinkBound &b) {
  const bool sampled = a.sampled || b.sampled;
  if (b.usPerByte > a.usPerByte) a = b;
  a.sampled = sampled;
  return a;
}

}  // namespace

LinkBound linkBound(const Topology &topo, CollectiveKind kind, int root) {
  bool sampled = false;
  switch (kind) {
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter: {
    const std::vector<int> sinks = sample(rankedDevices(topo), sampled);
    return blockCutBound(topo, sinks, sampled);
  }
  case CollectiveKind::Gather:
  case CollectiveKind::Scatter:
    return blockCutBound(topo, {topo.deviceOf(root)}, false);
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce:
    return rootCutBound(topo, root);
  case CollectiveKind::AllToAll:
    return allToAllBound(topo);
  case CollectiveKind::AllReduce:
    return larger(larger(allReduceCutBound(topo), allReduceVolumeBound(topo, false)),
                  allReduceVolumeBound(topo, true));
  case CollectiveKind::Barrier:
    break;
  }
  return LinkBound{};
}

}  // namespace collplan
