// The lower bound of a collective on a topology: inputs checked, then the link term
// (LinkBound.cpp), the memory and reduction terms and the latency term, as the simulator
// charges them.
#include "runtime/sim/LowerBound.h"

#include "runtime/core/Text.h"
#include "runtime/sim/LinkBound.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <sstream>

namespace collplan {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string num(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

void checkNumber(double x, bool positive, const std::string &field) {
  if (!std::isfinite(x) || x < 0 || (positive && x == 0))
    throw BoundError(field, std::string("must be a finite number ") +
                                (positive ? "> 0" : ">= 0") + ", got " + num(x));
}

/// What the bound needs of its inputs, named by the topology file's field paths.
void checkInputs(const Topology &topo, CollectiveKind kind, const BoundOptions &options) {
  const int n = topo.numRanks();
  if (n < 1) throw BoundError("topology", "has no ranks");
  if (topo.rankToDevice.size() != size_t(n))
    throw BoundError("topology", "is not finalized (call Topology::finalize())");
  if (needsRoot(kind) && (options.root < 0 || options.root >= n))
    throw BoundError("root", "rank " + std::to_string(options.root) + " is outside 0.." +
                                 std::to_string(n - 1));
  for (size_t l = 0; l < topo.links.size(); ++l) {
    const std::string field = "links[" + std::to_string(l) + "]";
    checkNumber(topo.links[l].bandwidthGBps, true, field + ".bandwidth_gbps");
    checkNumber(topo.links[l].latencyUs, false, field + ".latency_us");
  }
  checkNumber(topo.intraDeviceLatencyUs, false, "intra_device.latency_us");
  for (size_t d = 0; d < topo.devices.size(); ++d) {
    const Device &device = topo.devices[d];
    const std::string field = "devices[" + std::to_string(d) + "]";
    checkNumber(device.opOverheadUs, false, field + ".op_overhead_us");
    if (!options.memory || device.ranks.empty()) continue;
    checkNumber(device.memBandwidthGBps, true, field + ".mem_bandwidth_gbps");
    checkNumber(device.reduceGBps, false, field + ".reduce_gbps");
  }
}

// ---- memory and reduction -------------------------------------------------------------------

/// Per rank-holding device, in units of M: at least R bytes its ranks receive, X of them from
/// other devices, and W bytes written to its ranks' outputs (what the collective's definition
/// forces; a plan may move more).
struct Traffic {
  double received = 0, fromOutside = 0, written = 0;
};

Traffic deviceTraffic(CollectiveKind kind, int n, int r, bool holdsRoot) {
  const double block = 1.0 / double(n), others = double(n - r);
  const bool outside = n > r;
  switch (kind) {
  case CollectiveKind::AllGather:
  case CollectiveKind::AllToAll: {
    // Each rank receives the N - 1 blocks of the others and writes them out.
    const double fromOutside = kind == CollectiveKind::AllGather ? others : r * others;
    return {r * (n - 1) * block, fromOutside * block, r * (n - 1) * block};
  }
  case CollectiveKind::ReduceScatter:  // its block needs everyone's part: >= one block in
    return {r * block, outside ? r * block : 0, r * block};
  case CollectiveKind::AllReduce:  // the whole vector needs everyone's part
    return {double(r), outside ? 1.0 : 0.0, double(r)};
  case CollectiveKind::Broadcast:
    return holdsRoot ? Traffic{r - 1.0, 0, r - 1.0} : Traffic{double(r), 1.0, double(r)};
  case CollectiveKind::Reduce:
    return holdsRoot && n > 1 ? Traffic{1.0, outside ? 1.0 : 0.0, 1.0} : Traffic{};
  case CollectiveKind::Gather:
    return holdsRoot ? Traffic{(n - 1) * block, others * block, (n - 1) * block} : Traffic{};
  case CollectiveKind::Scatter: {
    const double receivers = holdsRoot ? r - 1.0 : double(r);
    return {receivers * block, holdsRoot ? 0.0 : r * block, receivers * block};
  }
  case CollectiveKind::Barrier:
    break;
  }
  return {};
}

/// Memory bytes per message byte: a pushed byte lands in the receiver's memory and the
/// receiving op reads it (2), a pulled one is only read (1); every output byte is written (1).
/// Transfers between devices are always pushes.
double touchesPerByte(const Traffic &t, bool pull) {
  return pull ? t.received + t.fromOutside + t.written : 2 * t.received + t.written;
}

std::vector<MemoryTerm> memoryTerms(const Topology &topo, CollectiveKind kind, int root) {
  std::vector<MemoryTerm> terms;
  const int n = topo.numRanks(), rootDevice = topo.deviceOf(root);
  for (size_t d = 0; d < topo.devices.size(); ++d) {
    const Device &device = topo.devices[d];
    const int r = int(device.ranks.size());
    if (r == 0) continue;
    const Traffic t = deviceTraffic(kind, n, r, int(d) == rootDevice);
    MemoryTerm term;
    term.device = int(d);
    term.ranks = r;
    term.touchesPerByte = touchesPerByte(t, topo.intraDevicePull);
    term.memGBps = device.memBandwidthGBps;
    term.cacheBytes = device.cacheBytes;
    term.cacheGBps = device.cacheBandwidthGBps;
    term.nearCacheBytes = device.nearCacheBytes;
    term.nearCacheGBps = device.nearCacheBandwidthGBps;
    if (term.touchesPerByte > 0) terms.push_back(term);
  }
  return terms;
}

/// Reductions: N - 1 pairwise combines per element of the result at least, spread over every
/// device's reduction unit; only when every device with ranks declares one (0 = not modelled).
double reduceUsPerByte(const Topology &topo, CollectiveKind kind) {
  if (!needsReduceOp(kind)) return 0;
  double capacity = 0;
  for (const Device &device : topo.devices) {
    if (device.ranks.empty()) continue;
    if (device.reduceGBps <= 0) return 0;
    capacity += device.reduceGBps * 1e3;
  }
  return capacity > 0 ? double(topo.numRanks() - 1) / capacity : 0;
}

// ---- latency ---------------------------------------------------------------------------------

/// Per vertex: its neighbours and the latency of the link to each.
using Adjacency = std::vector<std::vector<std::pair<int, double>>>;

Adjacency latencyAdjacency(const Topology &topo) {
  Adjacency adj(size_t(topo.numVertices()));
  for (const Link &link : topo.links) {
    adj[size_t(link.a)].push_back({link.b, link.latencyUs});
    adj[size_t(link.b)].push_back({link.a, link.latencyUs});
  }
  return adj;
}

/// Latency of the fastest path (sum of link latencies) from `device` to every vertex.
std::vector<double> latenciesFrom(const Topology &topo, const Adjacency &adj, int device) {
  std::vector<double> dist(size_t(topo.numVertices()), kInf);
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  dist[size_t(device)] = 0;
  queue.push({0, device});
  while (!queue.empty()) {
    const auto [d, v] = queue.top();
    queue.pop();
    if (d > dist[size_t(v)]) continue;
    for (const auto &[w, latency] : adj[size_t(v)])
      if (d + latency < dist[size_t(w)]) {
        dist[size_t(w)] = d + latency;
        queue.push({d + latency, w});
      }
  }
  return dist;
}

struct LatencyTerm {
  double us = 0;
  std::string path;
  bool sampled = false;
};

/// The transfers a collective needs: from every rank to every rank, from the root to every
/// rank, or from every rank to the root (the path costs are symmetric, so one set of sources).
std::vector<int> latencySources(const Topology &topo, CollectiveKind kind, int root,
                                bool &sampled) {
  if (needsRoot(kind)) return {topo.deviceOf(root)};
  std::vector<int> devices;
  for (int d = 0; d < int(topo.devices.size()); ++d)
    if (!topo.devices[size_t(d)].ranks.empty()) devices.push_back(d);
  if (devices.size() <= size_t(kMaxExactBoundDevices)) return devices;
  sampled = true;
  std::vector<int> kept;
  for (int k = 0; k < kMaxExactBoundDevices; ++k)
    kept.push_back(devices[devices.size() * size_t(k) / size_t(kMaxExactBoundDevices)]);
  return kept;
}

/// The farthest pair's chain of transfers: op overhead at both ends plus the path latency
/// (a chain through other ranks only adds); two ranks of one device: the intra-device latency,
/// or a round trip through another device if that is faster.
LatencyTerm farthestPair(const Topology &topo, CollectiveKind kind, int root) {
  const Adjacency adj = latencyAdjacency(topo);
  LatencyTerm term;
  auto overhead = [&](size_t d) { return topo.devices[d].opOverheadUs; };
  for (int s : latencySources(topo, kind, root, term.sampled)) {
    const std::vector<double> dist = latenciesFrom(topo, adj, s);
    double roundTrip = kInf;
    for (size_t t = 0; t < topo.devices.size(); ++t) {
      if (topo.devices[t].ranks.empty() || int(t) == s) continue;
      if (!std::isfinite(dist[t]))
        throw BoundError("links", "no path from device '" + topo.devices[size_t(s)].name +
                                      "' to device '" + topo.devices[t].name + "'");
      roundTrip = std::min(roundTrip, 2 * dist[t] + overhead(t));
      const double cost = overhead(size_t(s)) + dist[t] + overhead(t);
      if (cost > term.us) {
        term.us = cost;
        term.path = "device '" + topo.devices[size_t(s)].name + "' to device '" +
                    topo.devices[t].name + "'";
      }
    }
    if (topo.devices[size_t(s)].ranks.size() < 2) continue;
    const double cost =
        2 * overhead(size_t(s)) + std::min(topo.intraDeviceLatencyUs, roundTrip);
    if (cost > term.us) {
      term.us = cost;
      term.path = "two ranks of device '" + topo.devices[size_t(s)].name + "'";
    }
  }
  return term;
}

/// Whether a rank can have only one send in flight: one engine per rank (an op ends when its
/// data has arrived), one send per op (no duplication), and no handshake (whose sender goes on
/// before its data arrives).
bool oneSendAtATime(const Topology &topo) {
  if (topo.features.duplication) return false;
  bool shared = false;
  for (const Device &device : topo.devices) {
    if (device.ranks.empty()) continue;
    if (device.enginesPerRank != 1 && device.engines != 1) return false;
    shared = shared || device.ranks.size() > 1;
  }
  return !(shared && topo.intraDevicePull && topo.intraDeviceHandshake);
}

/// The least time any one transfer takes: the sender's op overhead plus the latency of the
/// fastest path to another rank's device, or the intra-device latency.
double fastestTransferByPaths(const Topology &topo, const std::vector<int> &ranked) {
  const Adjacency adj = latencyAdjacency(topo);
  double fastest = kInf;
  for (int s : ranked) {
    const Device &device = topo.devices[size_t(s)];
    if (device.ranks.size() > 1)
      fastest = std::min(fastest, device.opOverheadUs + topo.intraDeviceLatencyUs);
    const std::vector<double> dist = latenciesFrom(topo, adj, s);
    for (int t : ranked)
      if (t != s) fastest = std::min(fastest, device.opOverheadUs + dist[size_t(t)]);
  }
  return fastest;
}

/// At most that, without a path search per device: the sender's fastest link instead.
double fastestTransferByLinks(const Topology &topo, const std::vector<int> &ranked) {
  double fastest = kInf;
  for (int d : ranked) {
    const Device &device = topo.devices[size_t(d)];
    if (device.ranks.size() > 1)
      fastest = std::min(fastest, device.opOverheadUs + topo.intraDeviceLatencyUs);
    for (const Link &link : topo.links)
      if (link.a == d || link.b == d)
        fastest = std::min(fastest, device.opOverheadUs + link.latencyUs);
  }
  return fastest;
}

/// At most the least time any transfer takes (exact up to kMaxExactBoundDevices ranked
/// devices); 0 when there is none.
double fastestTransferUs(const Topology &topo) {
  std::vector<int> ranked;
  for (int d = 0; d < int(topo.devices.size()); ++d)
    if (!topo.devices[size_t(d)].ranks.empty()) ranked.push_back(d);
  const double fastest = ranked.size() <= size_t(kMaxExactBoundDevices)
                             ? fastestTransferByPaths(topo, ranked)
                             : fastestTransferByLinks(topo, ranked);
  return std::isfinite(fastest) ? fastest : 0;
}

/// With one send in flight per rank, the ranks holding any one rank's data at most double per
/// transfer time, so a collective that spreads a rank's data to all N ranks takes
/// ceil(log2 N) of them (gather and reduce only collect, which needs no more than one).
LatencyTerm latencyBound(const Topology &topo, CollectiveKind kind, int root) {
  LatencyTerm term = farthestPair(topo, kind, root);
  const int n = topo.numRanks();
  if (n < 2 || kind == CollectiveKind::Gather || kind == CollectiveKind::Reduce ||
      !oneSendAtATime(topo))
    return term;
  const int rounds = ceilLog2(n);
  const double alpha = fastestTransferUs(topo);
  if (rounds * alpha > term.us) {
    term.us = rounds * alpha;
    term.path = std::to_string(rounds) + " rounds of one send per rank, " + num(alpha) +
                " us each at least";
  }
  return term;
}

}  // namespace

double MemoryTerm::bandwidthGBps(uint64_t bytes) const {
  const double footprint = 2.0 * double(bytes) * double(ranks);
  double best = memGBps;
  if (cacheBytes > 0 && footprint <= cacheBytes) best = std::max(best, cacheGBps);
  if (nearCacheBytes > 0 && footprint <= nearCacheBytes) best = std::max(best, nearCacheGBps);
  return best;
}

double MemoryTerm::timeUs(uint64_t bytes) const {
  const double gbps = bandwidthGBps(bytes);
  return gbps > 0 ? touchesPerByte * double(bytes) / (gbps * 1e3) : 0;
}

double CollectiveBound::memoryUs(uint64_t bytes, int *device) const {
  double worst = 0;
  if (device) *device = -1;
  for (const MemoryTerm &term : memory) {
    const double us = term.timeUs(bytes);
    if (us > worst) {
      worst = us;
      if (device) *device = term.device;
    }
  }
  return worst;
}

double CollectiveBound::bandwidthUs(uint64_t bytes) const {
  return std::max({linkUs(bytes), memoryUs(bytes), reduceUs(bytes)});
}

double CollectiveBound::timeUs(uint64_t bytes) const {
  return std::max(latencyUs, bandwidthUs(bytes));
}

std::string_view CollectiveBound::limit(uint64_t bytes) const {
  const double link = linkUs(bytes), mem = memoryUs(bytes), reduce = reduceUs(bytes);
  const double most = std::max({link, mem, reduce});
  if (latencyUs >= most) return "latency";
  if (link == most) return "links";
  return mem == most ? "memory" : "reduction";
}

CollectiveBound collectiveBound(const Topology &topo, CollectiveKind kind,
                                const BoundOptions &options) {
  checkInputs(topo, kind, options);
  CollectiveBound bound;
  bound.kind = kind;
  bound.ranks = topo.numRanks();
  bound.root = needsRoot(kind) ? options.root : 0;
  const LinkBound links = linkBound(topo, kind, bound.root);
  bound.linkUsPerByte = links.usPerByte;
  bound.linkCut = links.cut;
  if (options.memory) {
    bound.memory = memoryTerms(topo, kind, bound.root);
    bound.reduceUsPerByte = reduceUsPerByte(topo, kind);
  }
  const LatencyTerm latency = latencyBound(topo, kind, bound.root);
  bound.latencyUs = latency.us;
  bound.latencyPath = latency.path;
  bound.sampled = links.sampled || latency.sampled;
  return bound;
}

}  // namespace collplan
