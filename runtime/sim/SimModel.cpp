// Checks a plan against a topology for simulation and flattens both into SimModel tables.
#include "runtime/sim/SimModel.h"

#include "runtime/topology/Routing.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_map>

namespace collplan {
namespace {

/// Calls fn(rank, index, op) for every op, in blocks of consecutive op indices per rank, so that
/// both the plan (read per rank) and the interleaved slot tables (written per op index) are
/// touched within a cache-sized window.
template <typename Fn>
void forEachOpBlocked(const Plan &plan, Fn &&fn) {
  const uint32_t block = 64;
  size_t longest = 0;
  for (const RankProgram &program : plan.programs) longest = std::max(longest, program.ops.size());
  for (size_t first = 0; first < longest; first += block)
    for (int r = 0; r < plan.ranks; ++r) {
      const auto &ops = plan.programs[r].ops;
      size_t last = std::min(ops.size(), first + block);
      for (size_t i = first; i < last; ++i) fn(r, uint32_t(i), ops[i]);
    }
}

bool finitePositive(double x) { return std::isfinite(x) && x > 0; }
bool finiteNonNegative(double x) { return std::isfinite(x) && x >= 0; }

std::string num(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

std::string describeOp(const Plan &plan, int rank, int op) {
  return "rank " + std::to_string(rank) + " op " + std::to_string(op) + " (" +
         std::string(toString(plan.programs[rank].ops[op].kind)) + ")";
}

std::string topologyName(const Topology &topo) {
  return "topology '" + (topo.name.empty() ? std::string("<unnamed>") : topo.name) + "'";
}

std::string vertexName(const Topology &topo, int vertex) {
  int devices = int(topo.devices.size());
  if (vertex >= 0 && vertex < devices) return "device '" + topo.devices[vertex].name + "'";
  if (vertex >= devices && vertex < topo.numVertices())
    return "switch '" + topo.switches[vertex - devices].name + "'";
  return "vertex " + std::to_string(vertex);
}

void checkShapes(const Plan &plan, const Topology &topo) {
  int topoRanks = topo.numRanks();
  if (plan.ranks != topoRanks)
    throw SimError("the plan has " + std::to_string(plan.ranks) + " ranks but " +
                   topologyName(topo) + " has " + std::to_string(topoRanks));
  if (plan.programs.size() != size_t(plan.ranks))
    throw SimError("the plan has " + std::to_string(plan.ranks) + " ranks but " +
                   std::to_string(plan.programs.size()) + " rank programs");
  if (plan.units == 0) throw SimError("the plan has 0 units (the message must be cut into >= 1)");
  if (topo.rankToDevice.size() != size_t(topoRanks))
    throw SimError(topologyName(topo) + " is not finalized (call Topology::finalize())");
  uint64_t totalOps = 0;
  for (int r = 0; r < plan.ranks; ++r) {
    const auto &ops = plan.programs[r].ops;
    totalOps += ops.size();
    for (size_t i = 0; i < ops.size(); ++i) {
      auto checkPeer = [&](const Endpoint &e, const char *what) {
        if (e.peer < 0 || e.peer >= plan.ranks)
          throw SimError(describeOp(plan, r, int(i)) + " " + what + " rank " +
                         std::to_string(e.peer) + ", outside 0.." +
                         std::to_string(plan.ranks - 1));
      };
      if (ops[i].recv) checkPeer(*ops[i].recv, "receives from");
      for (const Endpoint &e : ops[i].sends) checkPeer(e, "sends to");
    }
  }
  if (totalOps >= kNoOp) throw SimError("the plan has too many ops (" + std::to_string(totalOps) + ")");
}

void checkFeatures(const Plan &plan, const Topology &topo) {
  if (!topo.features.duplication)
    for (int r = 0; r < plan.ranks; ++r) {
      const auto &ops = plan.programs[r].ops;
      for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == OpKind::Dup || ops[i].sends.size() > 1 || ops[i].dsts.size() > 1)
          throw SimError(describeOp(plan, r, int(i)) + " writes one value to " +
                         std::to_string(ops[i].sends.size() + ops[i].dsts.size()) +
                         " places, which needs the feature 'duplication' that " +
                         topologyName(topo) + " lacks");
    }
  if (planNeedsRemoteReads(plan) && !topo.features.remoteReads)
    throw SimError("the plan reads peers' memory (params.remote_reads) but " +
                   topologyName(topo) + " lacks the feature 'remote_reads'");
}

/// Pairs every send endpoint with its recv: sends are bucketed by receiver and sorted by
/// (sender, id), so each recv is found by binary search: O(S log(S / ranks)).
void matchTransfers(const Plan &plan, SimModel &model) {
  struct Outgoing {
    uint32_t from, id, send, slot;  ///< sender rank, transfer id, send index, sender's slot
  };
  size_t totalSends = model.sends.size();
  std::vector<uint32_t> bucketStart(plan.ranks + 1, 0);
  for (int r = 0; r < plan.ranks; ++r)
    for (const PlanOp &op : plan.programs[r].ops)
      for (const Endpoint &e : op.sends) bucketStart[e.peer + 1]++;
  for (int q = 0; q < plan.ranks; ++q) bucketStart[q + 1] += bucketStart[q];
  std::vector<uint32_t> fill(bucketStart.begin(), bucketStart.end() - 1);
  std::vector<Outgoing> outgoing(totalSends);
  forEachOpBlocked(plan, [&](int r, uint32_t i, const PlanOp &op) {
    uint32_t g = model.slot(r, i);
    for (size_t k = 0; k < op.sends.size(); ++k) {
      const Endpoint &e = op.sends[k];
      outgoing[fill[e.peer]++] = {uint32_t(r), e.id, model.sendBase[g] + uint32_t(k), g};
    }
  });
  auto key = [](const Outgoing &o) { return std::make_pair(o.from, o.id); };
  auto byKey = [&](const Outgoing &a, const Outgoing &b) { return key(a) < key(b); };
  for (int q = 0; q < plan.ranks; ++q) {
    auto begin = outgoing.begin() + bucketStart[q], end = outgoing.begin() + bucketStart[q + 1];
    if (!std::is_sorted(begin, end, byKey)) std::sort(begin, end, byKey);
    for (auto it = begin; it + 1 < end; ++it)
      if (key(*it) == key(*(it + 1))) {
        auto [r1, i1] = model.locate(it->slot);
        auto [r2, i2] = model.locate((it + 1)->slot);
        throw SimError(describeOp(plan, r1, i1) + " and " + describeOp(plan, r2, i2) +
                       " both send transfer id " + std::to_string(it->id) + " to rank " +
                       std::to_string(q));
      }
  }
  for (int q = 0; q < plan.ranks; ++q) {
    const auto &ops = plan.programs[q].ops;
    auto begin = outgoing.begin() + bucketStart[q], end = outgoing.begin() + bucketStart[q + 1];
    auto hint = begin;  // recvs usually come in the senders' order: try the next entry first
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!ops[i].recv) continue;
      const Endpoint &e = *ops[i].recv;
      auto wanted = std::make_pair(uint32_t(e.peer), e.id);
      auto it = hint;
      if (it == end || key(*it) != wanted)
        it = std::lower_bound(begin, end, wanted,
                              [&](const Outgoing &o, const std::pair<uint32_t, uint32_t> &w) {
                                return key(o) < w;
                              });
      if (it == end || key(*it) != wanted)
        throw SimError(describeOp(plan, q, int(i)) + " receives transfer id " +
                       std::to_string(e.id) + " from rank " + std::to_string(e.peer) +
                       ", which never sends it");
      hint = it + 1;
      SimSend &send = model.sends[it->send];
      uint32_t g = model.slot(q, uint32_t(i));
      if (send.receiverOp != kNoOp)
        throw SimError(describeOp(plan, q, int(i)) + " receives transfer id " +
                       std::to_string(e.id) + " from rank " + std::to_string(e.peer) +
                       ", which another op of rank " + std::to_string(q) + " receives too");
      uint32_t sentUnits = model.ops[it->slot].units, receivedUnits = model.ops[g].units;
      if (sentUnits != receivedUnits) {
        auto [sr, si] = model.locate(it->slot);
        throw SimError(describeOp(plan, sr, si) + " sends " + std::to_string(sentUnits) +
                       " units as transfer id " + std::to_string(e.id) + " but " +
                       describeOp(plan, q, int(i)) + " receives " +
                       std::to_string(receivedUnits));
      }
      send.receiverOp = g;
      send.receiverRank = q;
      model.senderOp[g] = it->slot;
    }
  }
  for (const Outgoing &o : outgoing)
    if (model.sends[o.send].receiverOp == kNoOp) {
      auto [r, i] = model.locate(o.slot);
      int to = int(&o - outgoing.data());
      to = int(std::upper_bound(bucketStart.begin(), bucketStart.end(), uint32_t(to)) -
               bucketStart.begin()) - 1;
      throw SimError(describeOp(plan, r, i) + " sends transfer id " + std::to_string(o.id) +
                     " to rank " + std::to_string(to) + ", which never receives it");
    }
}

SimRoute buildRoute(const Topology &topo, RouteTable &table, const SimModel &model, int from,
                    int to) {
  SimRoute route;
  int df = model.deviceOfRank[from], dt = model.deviceOfRank[to];
  if (df == dt) {
    if (!finitePositive(topo.intraDeviceBandwidthGBps))
      throw SimError("rank " + std::to_string(from) + " sends to rank " + std::to_string(to) +
                     " on the same " + vertexName(topo, df) + " but " + topologyName(topo) +
                     " has intraDeviceBandwidthGBps " + num(topo.intraDeviceBandwidthGBps) +
                     " (must be positive)");
    if (!finiteNonNegative(topo.intraDeviceLatencyUs))
      throw SimError(topologyName(topo) + " has intraDeviceLatencyUs " +
                     num(topo.intraDeviceLatencyUs) + " (must be >= 0)");
    route.intraDevice = df;
    route.latencyUs = topo.intraDeviceLatencyUs;
    route.capBytesPerUs = topo.intraDeviceBandwidthGBps * 1e3;
    return route;
  }
  try {
    route.hops = table.route(from, to);
  } catch (const std::exception &e) {
    throw SimError("no route from rank " + std::to_string(from) + " (" + vertexName(topo, df) +
                   ") to rank " + std::to_string(to) + " (" + vertexName(topo, dt) +
                   ") in " + topologyName(topo) + ": " + e.what());
  }
  if (route.hops.empty())
    throw SimError("no route from rank " + std::to_string(from) + " (" + vertexName(topo, df) +
                   ") to rank " + std::to_string(to) + " (" + vertexName(topo, dt) + ") in " +
                   topologyName(topo) + ": the route is empty");
  for (const Hop &hop : route.hops) {
    if (hop.link < 0 || hop.link >= int(topo.links.size()))
      throw SimError("the route from rank " + std::to_string(from) + " to rank " +
                     std::to_string(to) + " names link " + std::to_string(hop.link) +
                     ", outside 0.." + std::to_string(int(topo.links.size()) - 1));
    const Link &link = topo.links[hop.link];
    std::string where = "link " + std::to_string(hop.link) + " (" + vertexName(topo, link.a) +
                        " - " + vertexName(topo, link.b) + "), on the route from rank " +
                        std::to_string(from) + " to rank " + std::to_string(to) + ",";
    if (!finitePositive(link.bandwidthGBps))
      throw SimError(where + " has bandwidth " + num(link.bandwidthGBps) +
                     " GB/s (must be positive)");
    if (!finiteNonNegative(link.latencyUs))
      throw SimError(where + " has latency " + num(link.latencyUs) + " us (must be >= 0)");
    route.latencyUs += link.latencyUs;
    route.resources.push_back(model.linkResource(topo, hop));
  }
  return route;
}

void buildRoutes(const Plan &plan, const Topology &topo, SimModel &model) {
  std::unordered_map<uint64_t, int> cache;
  RouteTable table(topo);
  for (int r = 0; r < plan.ranks; ++r) {
    const auto &ops = plan.programs[r].ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      uint32_t g = model.slot(r, uint32_t(i));
      for (size_t k = 0; k < ops[i].sends.size(); ++k) {
        int to = ops[i].sends[k].peer;
        uint64_t key = uint64_t(r) * uint64_t(plan.ranks) + uint64_t(to);
        auto [it, inserted] = cache.emplace(key, int(model.routes.size()));
        if (inserted) model.routes.push_back(buildRoute(topo, table, model, r, to));
        SimSend &send = model.sends[model.sendBase[g] + k];
        send.route = it->second;
        if (model.pull && model.routes[send.route].intraDevice >= 0) {
          model.ops[send.receiverOp].pulledRecv = true;
          model.ops[send.receiverOp].cleanPull =
              model.ops[g].sendsInput && model.cleanPullsLocal[model.deviceOfRank[to]];
        }
      }
    }
  }
}

/// The pull rates of device `d` for a call with this footprint on it: each pull's cap and the
/// shared pull capacity, from the near tier or, past Topology::intraDevicePullCacheBytes, the far
/// one (pulls that migrate lines through memory rather than between caches).
void setPullTier(const Topology &topo, int d, double footprint, SimModel &model) {
  const Device &device = topo.devices[d];
  bool far = topo.intraDevicePull && topo.intraDevicePullCacheBytes > 0 &&
             footprint > topo.intraDevicePullCacheBytes;
  double cap = far ? topo.intraDevicePullMemoryGBps : topo.intraDeviceBandwidthGBps;
  double shared = far ? device.pullMemoryGBps : device.pullGBps;
  const char *sharedName = far ? "pullMemoryGBps" : "pullGBps";
  if (far && !finitePositive(cap))
    throw SimError(topologyName(topo) + " has intraDevicePullMemoryGBps " + num(cap) + " with a " +
                   num(topo.intraDevicePullCacheBytes) + "-byte pull tier (must be positive)");
  if (!finiteNonNegative(shared))
    throw SimError(vertexName(topo, d) + " has " + sharedName + " " + num(shared) +
                   " (must be >= 0; 0 means no shared pull limit)");
  model.pullCapBytesPerUs[d] = cap * 1e3;
  model.capacities[model.pullBase + d] = shared * 1e3;
}

void buildCapacities(const Plan &plan, const Topology &topo, const SimOptions &options,
                     SimModel &model) {
  int numLinks = int(topo.links.size()), numDevices = int(topo.devices.size());
  model.memoryBase = 2 * numLinks;
  model.reduceBase = model.memoryBase + numDevices;
  model.pullBase = model.reduceBase + numDevices;
  model.capacities.assign(model.pullBase + numDevices, 0);
  model.opOverheadUs.assign(numDevices, 0);
  model.cleanPullsLocal.assign(numDevices, 0);
  model.pullCapBytesPerUs.assign(numDevices, 0);
  for (int l = 0; l < numLinks; ++l)
    model.capacities[2 * l] = model.capacities[2 * l + 1] = topo.links[l].bandwidthGBps * 1e3;
  for (int d = 0; d < numDevices; ++d) {
    const Device &device = topo.devices[d];
    if (options.memory && !device.ranks.empty()) {
      if (!finitePositive(device.memBandwidthGBps))
        throw SimError(vertexName(topo, d) + " has memBandwidthGBps " +
                       num(device.memBandwidthGBps) +
                       "; the memory model needs a positive bandwidth (or simulate with "
                       "SimOptions::memory = false)");
      if (!finiteNonNegative(device.reduceGBps))
        throw SimError(vertexName(topo, d) + " has reduceGBps " + num(device.reduceGBps) +
                       " (must be >= 0; 0 means limited by memory only)");
    }
    // A call whose footprint (every rank's input, output and scratch) fits one of the device's
    // caches runs its memory traffic at the smallest such cache's bandwidth.
    double footprint = model.unitBytes * (2.0 * double(plan.units) + double(plan.scratchUnits)) *
                       double(device.ranks.size());
    double bandwidth = device.memBandwidthGBps;
    model.cleanPullsLocal[d] = footprint <= topo.intraDeviceCleanPullBytes;
    auto tier = [&](double bytes, double gbps, const char *what) {
      if (!(bytes > 0 && footprint <= bytes)) return false;
      if (options.memory && !finitePositive(gbps))
        throw SimError(vertexName(topo, d) + " has " + what + " " + num(gbps) + " with a " +
                       num(bytes) + "-byte cache (must be positive)");
      bandwidth = gbps;
      return true;
    };
    if (!tier(device.nearCacheBytes, device.nearCacheBandwidthGBps, "nearCacheBandwidthGBps"))
      tier(device.cacheBytes, device.cacheBandwidthGBps, "cacheBandwidthGBps");
    if (!finiteNonNegative(device.opOverheadUs))
      throw SimError(vertexName(topo, d) + " has opOverheadUs " + num(device.opOverheadUs) +
                     " (must be >= 0)");
    model.opOverheadUs[d] = device.opOverheadUs;
    model.capacities[model.memoryBase + d] = bandwidth * 1e3;
    model.capacities[model.reduceBase + d] = device.reduceGBps * 1e3;
    setPullTier(topo, d, footprint, model);
  }
}

}  // namespace

std::pair<int, int> SimModel::locate(uint32_t slot) const {
  if (interleaved) return {int(slot % uint32_t(ranks)), int(slot / uint32_t(ranks))};
  auto it = std::upper_bound(opBase.begin(), opBase.end(), slot);
  // The last rank whose base is <= slot: ranks with empty programs are skipped.
  int rank = int(it - opBase.begin()) - 1;
  return {rank, int(slot - opBase[rank])};
}

bool planNeedsRemoteReads(const Plan &plan) {
  auto it = plan.params.find("remote_reads");
  return it != plan.params.end() && it->is_boolean() && it->get<bool>();
}

bool planNeedsDuplication(const Plan &plan) {
  for (const RankProgram &program : plan.programs)
    for (const PlanOp &op : program.ops)
      if (op.kind == OpKind::Dup || op.sends.size() > 1 || op.dsts.size() > 1) return true;
  return false;
}

SimModel buildSimModel(const Plan &plan, const Topology &topo, uint64_t messageBytes,
                       const SimOptions &options) {
  checkShapes(plan, topo);
  checkFeatures(plan, topo);
  SimModel model;
  model.ranks = plan.ranks;
  model.unitBytes = double(messageBytes) / double(plan.units);
  model.multicast = topo.features.multicast;
  model.pull = topo.intraDevicePull;
  model.handshake = topo.intraDevicePull && topo.intraDeviceHandshake;
  model.intraLatencyUs = topo.intraDeviceLatencyUs;
  model.deviceOfRank = topo.rankToDevice;
  uint64_t totalOps = 0, maxOps = 0;
  model.opCount.resize(plan.ranks);
  model.opBase.assign(plan.ranks + 1, 0);
  for (int r = 0; r < plan.ranks; ++r) {
    model.opCount[r] = uint32_t(plan.programs[r].ops.size());
    model.opBase[r + 1] = model.opBase[r] + model.opCount[r];
    totalOps += model.opCount[r];
    maxOps = std::max<uint64_t>(maxOps, model.opCount[r]);
  }
  uint64_t interleavedSlots = maxOps * uint64_t(plan.ranks);
  model.interleaved = interleavedSlots <= 2 * totalOps + uint64_t(plan.ranks) &&
                      interleavedSlots < uint64_t(kNoOp);
  model.slots = uint32_t(model.interleaved ? interleavedSlots : totalOps);
  model.ops.assign(model.slots, SimOp{});
  std::vector<uint32_t> sendCount(model.slots, 0);
  forEachOpBlocked(plan, [&](int r, uint32_t i, const PlanOp &op) {
    uint32_t g = model.slot(r, i);
    sendCount[g] = uint32_t(op.sends.size());
    SimOp &packed = model.ops[g];
    packed.units = op.length();
    packed.hasRecv = op.recv.has_value();
    packed.operands = uint32_t(op.numOperands());
    packed.localTouches = packed.operands + uint32_t(op.dsts.size());
    packed.dsts = uint16_t(std::min<size_t>(op.dsts.size(), UINT16_MAX));
    packed.sendsInput = packed.forwardsSrc() && !op.sends.empty() &&
                        op.srcs.size() == 1 && op.srcs[0].buf == BufferKind::In;
  });
  model.sendBase.assign(model.slots + 1, 0);
  for (uint32_t g = 0; g < model.slots; ++g) model.sendBase[g + 1] = model.sendBase[g] + sendCount[g];
  model.sends.assign(model.sendBase[model.slots], SimSend{});
  model.senderOp.assign(model.slots, kNoOp);
  matchTransfers(plan, model);
  buildCapacities(plan, topo, options, model);
  buildRoutes(plan, topo, model);
  return model;
}

}  // namespace collplan
