// Checks a plan against a topology for simulation and flattens both into SimModel tables.
#include "runtime/sim/SimModel.h"

#include "runtime/plan/FusedChains.h"

#include "runtime/topology/Routing.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace collplan {
namespace {

/// Every rank's ops in rank-local order (channel after channel), for lookups by local index.
struct FlatOps {
  std::vector<std::vector<const PlanOp *>> ops;      ///< [rank][local]
  std::vector<std::vector<uint32_t>> channelOf;      ///< [rank][local]

  explicit FlatOps(const Plan &plan) : ops(size_t(plan.ranks)), channelOf(size_t(plan.ranks)) {
    for (int r = 0; r < plan.ranks; ++r) {
      const std::vector<Channel> &channels = plan.programs[size_t(r)].channels;
      for (uint32_t c = 0; c < channels.size(); ++c)
        for (const PlanOp &op : channels[c].ops) {
          ops[size_t(r)].push_back(&op);
          channelOf[size_t(r)].push_back(c);
        }
    }
  }
};

/// Calls fn(rank, local index, op) for every op, in blocks of consecutive local indices per
/// rank, so that both the plan (read per rank) and the interleaved slot tables (written per
/// local index) are touched within a cache-sized window.
template <typename Fn>
void forEachOpBlocked(const FlatOps &flat, Fn &&fn) {
  const uint32_t block = 64;
  size_t longest = 0;
  for (const auto &ops : flat.ops) longest = std::max(longest, ops.size());
  for (size_t first = 0; first < longest; first += block)
    for (size_t r = 0; r < flat.ops.size(); ++r) {
      const auto &ops = flat.ops[r];
      size_t last = std::min(ops.size(), first + block);
      for (size_t i = first; i < last; ++i) fn(int(r), uint32_t(i), *ops[i]);
    }
}

/// Per rank, per op in channel-after-channel order: the length of the fused chain it heads
/// (FusedChains.h; 1 when it heads none, 0 inside a chain). Chains whose last op sends are
/// left unfused here (their ops run one by one): the simulator streams a send's bytes in the
/// op that sends, which inside a fused pass it does not model.
std::vector<std::vector<uint32_t>> simulatedChains(const Plan &plan) {
  std::vector<std::vector<uint32_t>> lengths(plan.programs.size());
  for (size_t r = 0; r < plan.programs.size(); ++r) {
    const RankProgram &program = plan.programs[r];
    const std::vector<std::vector<uint32_t>> chains = fusedChainLengths(program);
    for (size_t c = 0; c < chains.size(); ++c) {
      std::vector<uint32_t> channel = chains[c];
      for (size_t i = 0; i < channel.size(); ++i) {
        if (channel[i] <= 1 || program.channels[c].ops[i + channel[i] - 1].sends.empty()) continue;
        std::fill(channel.begin() + long(i), channel.begin() + long(i + channel[i]), 1u);
      }
      lengths[r].insert(lengths[r].end(), channel.begin(), channel.end());
    }
  }
  return lengths;
}

bool finitePositive(double x) { return std::isfinite(x) && x > 0; }
bool finiteNonNegative(double x) { return std::isfinite(x) && x >= 0; }

std::string num(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

std::string describeOp(const FlatOps &flat, int rank, int local) {
  const PlanOp &op = *flat.ops[size_t(rank)][size_t(local)];
  uint32_t channel = flat.channelOf[size_t(rank)][size_t(local)], index = 0;
  for (int k = local - 1; k >= 0 && flat.channelOf[size_t(rank)][size_t(k)] == channel; --k) ++index;
  return "rank " + std::to_string(rank) + " channel " + std::to_string(channel) + " op " +
         std::to_string(index) + " (" + std::string(toString(op.kind)) + ")";
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

void checkShapes(const Plan &plan, const Topology &topo, const FlatOps &flat) {
  int topoRanks = topo.numRanks();
  if (plan.ranks != topoRanks)
    throw SimError("the plan has " + std::to_string(plan.ranks) + " ranks but " +
                   topologyName(topo) + " has " + std::to_string(topoRanks));
  if (plan.programs.size() != size_t(plan.ranks))
    throw SimError("the plan has " + std::to_string(plan.ranks) + " ranks but " +
                   std::to_string(plan.programs.size()) + " rank programs");
  if (plan.onlyRank >= 0)
    throw SimError("the plan holds only the program of rank " + std::to_string(plan.onlyRank) +
                   " (loaded for one rank): simulating needs every rank's program");
  if (plan.units == 0 && plan.collective != CollectiveKind::Barrier)
    throw SimError("the plan has 0 units (the message must be cut into >= 1)");
  if (topo.rankToDevice.size() != size_t(topoRanks))
    throw SimError(topologyName(topo) + " is not finalized (call Topology::finalize())");
  uint64_t totalOps = 0;
  for (int r = 0; r < plan.ranks; ++r) {
    const RankProgram &program = plan.programs[size_t(r)];
    if (program.channels.size() > kMaxChannels)
      throw SimError("rank " + std::to_string(r) + " has " +
                     std::to_string(program.channels.size()) + " channels (at most " +
                     std::to_string(kMaxChannels) + ")");
    const auto &ops = flat.ops[size_t(r)];
    totalOps += ops.size();
    for (size_t i = 0; i < ops.size(); ++i) {
      auto checkPeer = [&](int32_t peer, const char *what) {
        if (peer < 0 || peer >= plan.ranks || peer == r)
          throw SimError(describeOp(flat, r, int(i)) + " " + what + " rank " +
                         std::to_string(peer) + ", which is itself or outside 0.." +
                         std::to_string(plan.ranks - 1));
      };
      if (ops[i]->recv) checkPeer(*ops[i]->recv, "receives from");
      for (int32_t q : ops[i]->sends) checkPeer(q, "sends to");
      for (const OpRef &dep : ops[i]->after)
        if (dep.channel >= program.channels.size() ||
            dep.op >= program.channels[dep.channel].ops.size() ||
            dep.channel == flat.channelOf[size_t(r)][i])
          throw SimError(describeOp(flat, r, int(i)) + " waits for channel " +
                         std::to_string(dep.channel) + " op " + std::to_string(dep.op) +
                         ", which is not an op of another channel of rank " + std::to_string(r));
    }
  }
  if (totalOps >= kNoOp) throw SimError("the plan has too many ops (" + std::to_string(totalOps) + ")");
}

void checkFeatures(const Plan &plan, const Topology &topo, const FlatOps &flat) {
  if (!topo.features.duplication)
    for (int r = 0; r < plan.ranks; ++r) {
      const auto &ops = flat.ops[size_t(r)];
      for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i]->kind == OpKind::Dup || ops[i]->sends.size() > 1 || ops[i]->dsts.size() > 1)
          throw SimError(describeOp(flat, r, int(i)) + " writes one value to " +
                         std::to_string(ops[i]->sends.size() + ops[i]->dsts.size()) +
                         " places, which needs the feature 'duplication' that " +
                         topologyName(topo) + " lacks");
    }
  if (planNeedsRemoteReads(plan) && !topo.features.remoteReads)
    throw SimError("the plan reads peers' memory (params.remote_reads) but " +
                   topologyName(topo) + " lacks the feature 'remote_reads'");
}

/// Pairs every send endpoint with its recv: the k-th message of each (sender, receiver,
/// channel) FIFO with the k-th recv of that FIFO, in program order at both ends.
void matchTransfers(const Plan &plan, const FlatOps &flat, SimModel &model) {
  struct Fifo {
    std::vector<uint32_t> sends;  ///< indices into model.sends, in the sender's order
    std::vector<uint32_t> recvs;  ///< receiving slots, in the receiver's order
    int sender = 0, receiver = 0;
    uint32_t channel = 0;
  };
  std::unordered_map<uint64_t, uint32_t> index;
  std::vector<Fifo> fifos;
  auto fifoOf = [&](int sender, int receiver, uint32_t channel) {
    const uint64_t key = (uint64_t(sender) * uint64_t(plan.ranks) + uint64_t(receiver)) *
                             kMaxChannels + channel;
    auto [it, fresh] = index.try_emplace(key, uint32_t(fifos.size()));
    if (fresh) fifos.push_back(Fifo{{}, {}, sender, receiver, channel});
    return it->second;
  };
  // Program order per rank (local indices grow along each channel).
  for (int r = 0; r < plan.ranks; ++r) {
    const auto &ops = flat.ops[size_t(r)];
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const uint32_t g = model.slot(r, i), channel = flat.channelOf[size_t(r)][i];
      if (ops[i]->recv) {
        const uint32_t f = fifoOf(*ops[i]->recv, r, channel);
        fifos[f].recvs.push_back(g);
        model.ops[g].recvFifo = f;
      }
      for (size_t k = 0; k < ops[i]->sends.size(); ++k) {
        const uint32_t f = fifoOf(r, ops[i]->sends[k], channel);
        fifos[f].sends.push_back(model.sendBase[g] + uint32_t(k));
        model.sends[model.sendBase[g] + k].fifo = f;
      }
    }
  }
  // Sends are matched in the order their FIFOs were first seen: deterministic errors.
  for (const Fifo &f : fifos) {
    const std::string between = "rank " + std::to_string(f.sender) + " to rank " +
                                std::to_string(f.receiver) + " on channel " +
                                std::to_string(f.channel);
    if (f.sends.size() != f.recvs.size())
      throw SimError(between + ": " + std::to_string(f.sends.size()) +
                     " messages are sent but " + std::to_string(f.recvs.size()) + " received");
    for (size_t k = 0; k < f.sends.size(); ++k) {
      SimSend &send = model.sends[f.sends[k]];
      const uint32_t g = f.recvs[k];
      const uint32_t senderSlot = uint32_t(
          std::upper_bound(model.sendBase.begin(), model.sendBase.end(), f.sends[k]) -
          model.sendBase.begin()) - 1;
      const uint32_t sentUnits = model.ops[senderSlot].units, receivedUnits = model.ops[g].units;
      if (sentUnits != receivedUnits) {
        auto [sr, si] = model.locate(senderSlot);
        auto [rr, ri] = model.locate(g);
        throw SimError("message " + std::to_string(k) + " from " + between + ": " +
                       describeOp(flat, sr, si) + " sends " + std::to_string(sentUnits) +
                       " units but " + describeOp(flat, rr, ri) + " receives " +
                       std::to_string(receivedUnits));
      }
      send.receiverOp = g;
      send.receiverRank = f.receiver;
      model.senderOp[g] = senderSlot;
    }
  }
  model.fifos = uint32_t(fifos.size());
}

/// The `after` references of every op as slots.
void buildAfter(const Plan &plan, const FlatOps &flat, SimModel &model) {
  model.afterBase.assign(model.slots + 1, 0);
  for (int r = 0; r < plan.ranks; ++r)
    for (uint32_t i = 0; i < flat.ops[size_t(r)].size(); ++i)
      model.afterBase[model.slot(r, i) + 1] = uint32_t(flat.ops[size_t(r)][i]->after.size());
  for (uint32_t g = 0; g < model.slots; ++g) model.afterBase[g + 1] += model.afterBase[g];
  model.afterSlots.assign(model.afterBase[model.slots], kNoOp);
  for (int r = 0; r < plan.ranks; ++r)
    for (uint32_t i = 0; i < flat.ops[size_t(r)].size(); ++i) {
      const uint32_t g = model.slot(r, i);
      const std::vector<OpRef> &after = flat.ops[size_t(r)][i]->after;
      for (size_t k = 0; k < after.size(); ++k)
        model.afterSlots[model.afterBase[g] + k] =
            model.slot(r, model.channelBegin[size_t(r)][after[k].channel] + after[k].op);
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

/// The route table of the last topology simulated, kept across simulations (keyed by the
/// topology's fingerprint) so that one topology simulated at many sizes or with many plans
/// computes each route once: at 4 096 ranks the shortest-path trees take seconds.
struct KeptRoutes {
  std::mutex mutex;
  std::string fingerprint;
  std::unique_ptr<Topology> topology;  ///< the copy `table` refers to
  std::unique_ptr<RouteTable> table;
};

RouteTable &keptRoutesFor(KeptRoutes &kept, const Topology &topo) {
  std::string fingerprint = topo.fingerprint();
  if (!kept.table || kept.fingerprint != fingerprint) {
    kept.table.reset();
    kept.topology = std::make_unique<Topology>(topo);
    kept.table = std::make_unique<RouteTable>(*kept.topology);
    kept.fingerprint = std::move(fingerprint);
  }
  return *kept.table;
}

void buildRoutes(const Plan &plan, const Topology &topo, const FlatOps &flat, SimModel &model) {
  std::unordered_map<uint64_t, int> cache;
  static KeptRoutes kept;
  std::lock_guard<std::mutex> lock(kept.mutex);
  RouteTable &table = keptRoutesFor(kept, topo);
  for (int r = 0; r < plan.ranks; ++r) {
    const auto &ops = flat.ops[size_t(r)];
    for (size_t i = 0; i < ops.size(); ++i) {
      uint32_t g = model.slot(r, uint32_t(i));
      for (size_t k = 0; k < ops[i]->sends.size(); ++k) {
        int to = ops[i]->sends[k];
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
  model.enginesPerRank.assign(numDevices, 0);
  model.engines.assign(numDevices, 0);
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
    model.enginesPerRank[d] = uint32_t(std::max(0, device.enginesPerRank));
    model.engines[d] = uint32_t(std::max(0, device.engines));
    model.capacities[model.memoryBase + d] = bandwidth * 1e3;
    model.capacities[model.reduceBase + d] = device.reduceGBps * 1e3;
    setPullTier(topo, d, footprint, model);
  }
}

}  // namespace

OpRef SimModel::opRef(int rank, uint32_t local) const {
  const std::vector<uint32_t> &begin = channelBegin[size_t(rank)];
  const uint32_t channel =
      uint32_t(std::upper_bound(begin.begin(), begin.end(), local) - begin.begin()) - 1;
  return OpRef{channel, local - begin[channel]};
}

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
    for (const Channel &channel : program.channels)
      for (const PlanOp &op : channel.ops)
        if (op.kind == OpKind::Dup || op.sends.size() > 1 || op.dsts.size() > 1) return true;
  return false;
}

SimModel buildSimModel(const Plan &plan, const Topology &topo, uint64_t messageBytes,
                       const SimOptions &options) {
  if (plan.programs.size() != size_t(plan.ranks) || plan.ranks < 1)
    throw SimError("the plan has " + std::to_string(plan.ranks) + " ranks but " +
                   std::to_string(plan.programs.size()) + " rank programs");
  const FlatOps flat(plan);
  checkShapes(plan, topo, flat);
  checkFeatures(plan, topo, flat);
  SimModel model;
  model.ranks = plan.ranks;
  // A barrier's token messages carry no bytes: each costs its path's latency.
  model.unitBytes = plan.units ? double(messageBytes) / double(plan.units) : 0.0;
  model.multicast = topo.features.multicast;
  model.pull = topo.intraDevicePull;
  model.handshake = topo.intraDevicePull && topo.intraDeviceHandshake;
  model.intraLatencyUs = topo.intraDeviceLatencyUs;
  model.deviceOfRank = topo.rankToDevice;
  uint64_t totalOps = 0, maxOps = 0;
  model.opCount.resize(plan.ranks);
  model.opBase.assign(plan.ranks + 1, 0);
  model.channelBegin.resize(size_t(plan.ranks));
  for (int r = 0; r < plan.ranks; ++r) {
    std::vector<uint32_t> &begin = model.channelBegin[size_t(r)];
    begin.push_back(0);
    for (const Channel &channel : plan.programs[size_t(r)].channels)
      begin.push_back(begin.back() + uint32_t(channel.ops.size()));
    model.opCount[r] = begin.back();
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
  const std::vector<std::vector<uint32_t>> chains = simulatedChains(plan);
  forEachOpBlocked(flat, [&](int r, uint32_t i, const PlanOp &op) {
    uint32_t g = model.slot(r, i);
    sendCount[g] = uint32_t(op.sends.size());
    SimOp &packed = model.ops[g];
    packed.units = op.length();
    packed.channel = flat.channelOf[size_t(r)][i];
    packed.hasRecv = op.recv.has_value();
    packed.operands = uint32_t(op.numOperands());
    // An op a fused chain folds in reads its message only: the executors keep the accumulator
    // in the pass and write it once, which the chain's head is charged for.
    const uint32_t chain = chains[size_t(r)][i];
    packed.chainLink = chain == 0;
    packed.chainLinks = uint16_t(chain > 1 ? std::min<uint32_t>(chain - 1, UINT16_MAX) : 0);
    packed.localTouches = packed.operands + uint32_t(op.dsts.size()) - (packed.chainLink ? 2 : 0);
    packed.dsts = uint16_t(std::min<size_t>(op.dsts.size(), UINT16_MAX));
    packed.sendsInput = packed.forwardsSrc() && !op.sends.empty() &&
                        op.srcs.size() == 1 && op.srcs[0].buf == BufferKind::In;
  });
  model.sendBase.assign(model.slots + 1, 0);
  for (uint32_t g = 0; g < model.slots; ++g) model.sendBase[g + 1] = model.sendBase[g] + sendCount[g];
  model.sends.assign(model.sendBase[model.slots], SimSend{});
  model.senderOp.assign(model.slots, kNoOp);
  matchTransfers(plan, flat, model);
  buildAfter(plan, flat, model);
  buildCapacities(plan, topo, options, model);
  buildRoutes(plan, topo, flat, model);
  return model;
}

}  // namespace collplan
