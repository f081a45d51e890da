// KangaRing lowerings: rings over device primaries with duplicated writes and 3R1W reductions.
//
// The ranks of a device are cut into pairs (primary, secondary) and only primaries form the
// ring. Allgather: a primary duplicates every chunk it receives to its secondary and downstream
// (1R2W). Reduce-scatter: a primary folds the received partial, its own chunk and its
// secondary's (read in place: `remote_reads`) in one 3R1W op. Two lanes (slices 0 and 1) swap
// the roles and run the ring in opposite directions, so every rank is primary for half the data.
// Devices are the topology's when one is given (ranks-per-device is then ignored), else groups
// of ranks-per-device (default 2) consecutive ranks; the device ring order is `order` (a
// permutation of the devices, or of the ranks read as devices in order of first appearance),
// else the topology's ring order, else device index order.
#include "compiler/lowering/Algorithms.h"

#include "runtime/topology/Topology.h"

#include <algorithm>

using namespace mlir;

namespace collplan {
namespace {

constexpr int kLanes = 2;

/// One lane: the primary and secondary of every pair, in ring order.
struct Lane {
  std::vector<int> primary, secondary;
  int pairs() const { return int(primary.size()); }
  int nextPrimary(int pos) const { return primary[(pos + 1) % pairs()]; }
};

/// The ranks of every device holding ranks: the topology's, or groups of `ranksPerDevice`
/// consecutive ranks.
std::vector<std::vector<int>> deviceRanks(const AlgorithmParams &p, int ranks) {
  std::vector<std::vector<int>> devices;
  if (p.topology) {
    for (const Device &device : p.topology->devices)
      if (!device.ranks.empty()) devices.push_back(device.ranks);
    return devices;
  }
  int perDevice = p.getInt("ranks-per-device");
  for (int first = 0; first < ranks; first += perDevice) {
    devices.emplace_back();
    for (int r = first; r < std::min(ranks, first + perDevice); ++r) devices.back().push_back(r);
  }
  return devices;
}

/// Devices in the order of first appearance of their ranks in `rankOrder`.
std::vector<int> devicesAlong(const std::vector<std::vector<int>> &devices,
                              const std::vector<int> &rankOrder) {
  std::vector<int> deviceOfRank;
  for (int d = 0; d < int(devices.size()); ++d)
    for (int r : devices[d]) {
      if (r >= int(deviceOfRank.size())) deviceOfRank.resize(r + 1, -1);
      deviceOfRank[r] = d;
    }
  std::vector<int> order;
  std::vector<bool> seen(devices.size(), false);
  for (int r : rankOrder) {
    int d = r < int(deviceOfRank.size()) ? deviceOfRank[r] : -1;
    if (d >= 0 && !seen[d]) {
      seen[d] = true;
      order.push_back(d);
    }
  }
  return order;
}

/// The device ring order: `order` as a device permutation or as a rank order, else the
/// topology's ring order, else device index order.
std::vector<int> deviceRingOrder(const AlgorithmParams &p,
                                 const std::vector<std::vector<int>> &devices, int ranks) {
  const std::vector<int> &order = p.getIntList("order");
  if (!order.empty() && int(order.size()) == int(devices.size()) && int(order.size()) != ranks)
    return order;
  return devicesAlong(devices, ringOrderFor(p, ranks));
}

/// Lane 0: pairs in device ring order, first rank of each pair primary. Lane 1: the reverse
/// ring with the roles swapped.
std::vector<Lane> kangaLanes(const AlgorithmParams &p, int ranks) {
  auto devices = deviceRanks(p, ranks);
  Lane forward;
  for (int d : deviceRingOrder(p, devices, ranks))
    for (size_t i = 0; i + 1 < devices[d].size(); i += 2) {
      forward.primary.push_back(devices[d][i]);
      forward.secondary.push_back(devices[d][i + 1]);
    }
  Lane backward{{forward.secondary.rbegin(), forward.secondary.rend()},
                {forward.primary.rbegin(), forward.primary.rend()}};
  return {forward, backward};
}

std::optional<std::string> checkKangaRing(const CollectiveSpec &spec, const AlgorithmParams &p) {
  auto oddDevice = [](int count) {
    return "KangaRing pairs the ranks of a device into primary and secondary, so it needs an "
           "even number of ranks per device (got " +
           std::to_string(count) + ")";
  };
  if (p.topology) {
    for (const Device &device : p.topology->devices)
      if (device.ranks.size() % 2 != 0)
        return "device '" + device.name + "' of topology '" + p.topology->name + "': " +
               oddDevice(int(device.ranks.size()));
  } else if (auto bad = checkDeviceGrouping(spec, p)) {
    return bad;
  } else if (p.getInt("ranks-per-device") % 2 != 0) {
    return oddDevice(p.getInt("ranks-per-device"));
  }
  int devices = int(deviceRanks(p, spec.ranks).size());
  const std::vector<int> &order = p.getIntList("order");
  if (order.empty() || int(order.size()) == spec.ranks) return checkRankOrder(spec, p);
  if (int(order.size()) != devices)
    return "KangaRing order has " + std::to_string(order.size()) +
           " entries: give a permutation of the " + std::to_string(devices) +
           " devices or of the " + std::to_string(spec.ranks) + " ranks";
  return checkPermutation(order, devices, "device order");
}

/// Reduces (chunk, slice) of every rank along the lane, starting downstream of pair `endPos`
/// and ending at pair `endPos`, whose primary writes the result to `dest` (itself or its
/// secondary). Each primary folds [received partial, own, secondary's] in one op.
Value reduceAlongPairs(ScheduleBuilder &b, const Lane &lane, int endPos, int chunk, int slice,
                       int dest, int firstStep) {
  int pairs = lane.pairs();
  Value partial;
  for (int k = 0; k < pairs; ++k) {
    int pos = (endPos + 1 + k) % pairs;
    int primary = lane.primary[pos];
    SmallVector<Value, 3> operands;
    if (partial) operands.push_back(partial);
    operands.push_back(b.input(primary, chunk, slice));
    operands.push_back(b.input(lane.secondary[pos], chunk, slice));
    int to = k + 1 == pairs ? dest : lane.nextPrimary(pos);
    b.setStep(firstStep + k);
    const Value reduced = b.reduce(operands, primary);
    partial = to == primary ? reduced : b.copy(reduced, to);
  }
  b.setStep(-1);
  return partial;
}

/// Circulates `value`, resident at the primary of pair `startPos`, binding it as output
/// (chunk, slice) on every rank: each primary duplicates it to its secondary and downstream
/// (the last one to its secondary only). `startSecondaryHasIt`: skip the first secondary.
void gatherAlongPairs(ScheduleBuilder &b, const Lane &lane, int startPos, Value value,
                      int chunk, int slice, int firstStep, bool startSecondaryHasIt) {
  int pairs = lane.pairs();
  b.output(value, lane.primary[startPos], chunk, slice);
  for (int k = 0; k < pairs; ++k) {
    int pos = (startPos + k) % pairs;
    bool toSecondary = !(k == 0 && startSecondaryHasIt);
    bool downstream = k + 1 < pairs;
    SmallVector<int, 2> targets;
    if (toSecondary) targets.push_back(lane.secondary[pos]);
    if (downstream) targets.push_back(lane.nextPrimary(pos));
    if (targets.empty()) break;
    b.setStep(firstStep + k);
    SmallVector<Value> copies = b.dup(value, targets);
    if (toSecondary) b.output(copies.front(), lane.secondary[pos], chunk, slice);
    if (downstream) {
      value = copies.back();
      b.output(value, lane.nextPrimary(pos), chunk, slice);
    }
  }
  b.setStep(-1);
}

/// Allgather: the primary's block starts at once; the secondary's block is first written to
/// its primary, which then forwards it like its own.
void allgatherLane(ScheduleBuilder &b, const Lane &lane, int slice) {
  for (int pos = 0; pos < lane.pairs(); ++pos) {
    int primary = lane.primary[pos], secondary = lane.secondary[pos];
    gatherAlongPairs(b, lane, pos, b.input(primary, 0, slice), primary, slice, 0, false);
    Value own = b.input(secondary, 0, slice);
    b.output(own, secondary, secondary, slice);
    b.setStep(0);
    Value atPrimary = b.copy(own, primary);
    gatherAlongPairs(b, lane, pos, atPrimary, secondary, slice, 1, true);
  }
}

void reduceScatterLane(ScheduleBuilder &b, const Lane &lane, int slice) {
  for (int pos = 0; pos < lane.pairs(); ++pos)
    for (int dest : {lane.primary[pos], lane.secondary[pos]})
      b.output(reduceAlongPairs(b, lane, pos, dest, slice, dest, 0), dest, 0, slice);
}

/// Allreduce: chunk c is reduced at the primary of pair c, then circulated.
void allreduceLane(ScheduleBuilder &b, const Lane &lane, int slice) {
  for (int pos = 0; pos < lane.pairs(); ++pos) {
    Value reduced = reduceAlongPairs(b, lane, pos, pos, slice, lane.primary[pos], 0);
    gatherAlongPairs(b, lane, pos, reduced, pos, slice, lane.pairs(), false);
  }
}

void buildKangaRing(ScheduleBuilder &b, const AlgorithmParams &p) {
  auto lanes = kangaLanes(p, b.ranks());
  for (int slice = 0; slice < kLanes; ++slice) {
    b.setChannel(slice);
    switch (b.spec().kind) {
    case CollectiveKind::AllGather:
      allgatherLane(b, lanes[slice], slice);
      break;
    case CollectiveKind::ReduceScatter:
      reduceScatterLane(b, lanes[slice], slice);
      break;
    default:
      allreduceLane(b, lanes[slice], slice);
      break;
    }
  }
  b.setChannel(-1);
}

}  // namespace

void registerKangaRingAlgorithms(AlgorithmRegistry &registry) {
  AlgorithmInfo kanga;
  kanga.name = "kangaring";
  kanga.summary = "ring over device primaries: duplicated writes (1R2W) and 3R1W reductions, "
                  "roles alternating between two rings";
  kanga.kinds = {CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
                 CollectiveKind::AllReduce};
  kanga.remoteReads = true;  // the primary reads its secondary's chunk in place
  kanga.check = checkKangaRing;
  kanga.chunks = [](const CollectiveSpec &s, const AlgorithmParams &) {
    return std::max(1, s.ranks / 2);  // allreduce: one chunk per pair
  };
  kanga.slices = [](const CollectiveSpec &, const AlgorithmParams &) { return kLanes; };
  kanga.build = buildKangaRing;
  // Pairs of ranks per device: each ring step's write goes to both ranks of the next device
  // (one read, two writes), a secondary's reduce-scatter hands its last partial to its primary.
  kanga.messages = [](const CollectiveSpec &s, const AlgorithmParams &p) -> std::optional<int> {
    if (p.getInt("ranks-per-device") != 2) return std::nullopt;
    return s.kind == CollectiveKind::ReduceScatter ? 2 * s.ranks - 1 : 2 * (s.ranks - 1);
  };
  kanga.params = {intParam("ranks-per-device", 2, 1, kMaxRanks,
                            "ranks per device (an even number: primary / secondary pairs; the "
                            "topology's devices when it is given)",
                            "rpd"),
                  intListParam("order", 0, kMaxRanks - 1,
                               "device ring order: a permutation of the devices, or of the "
                               "ranks (devices by first appearance)")};
  kanga.tuning = {deviceGroupingAxis({2, 4})};
  registry.add(std::move(kanga));
}

}  // namespace collplan
