// Mesh lowerings: direct writes to every peer device (two-step) or to every peer (single-step).
//
// Rank (e, i) is the i-th rank of device e. Two-step reduce-scatter: (e, i) writes its chunk
// for each rank of device d straight to (d, i), which folds them in device order (step 0);
// then the ranks of each device exchange their partials, each destination folding them in
// local order (step 1). Two-step allgather: (e, i) duplicates its block to (d, i) for every
// device d (step 0), then each rank duplicates what it holds to the other ranks of its device
// (step 1). Allreduce is both. Single-step allreduce: every rank duplicates its whole input to
// all peers and each folds all N of them in rank order.
#include "compiler/lowering/Algorithms.h"

#include "runtime/plan/Plan.h"
#include "runtime/topology/Topology.h"

#include <algorithm>

using namespace mlir;

namespace collplan {
namespace {

/// The ranks of every device (equal counts): the topology's, or groups of `ranksPerDevice`.
using Devices = std::vector<std::vector<int>>;

Devices meshDevices(const AlgorithmParams &p, int ranks) {
  Devices devices;
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

/// (device, local index) of every rank.
std::vector<std::pair<int, int>> placement(const Devices &devices, int ranks) {
  std::vector<std::pair<int, int>> where(ranks, {0, 0});
  for (int d = 0; d < int(devices.size()); ++d)
    for (int i = 0; i < int(devices[d].size()); ++i) where[devices[d][i]] = {d, i};
  return where;
}

std::optional<std::string> checkTwoStep(const CollectiveSpec &spec, const AlgorithmParams &p) {
  if (!p.topology) return checkDeviceGrouping(spec, p);
  const Device *first = nullptr;
  for (const Device &device : p.topology->devices) {
    if (device.ranks.empty()) continue;
    if (!first) first = &device;
    if (device.ranks.size() != first->ranks.size())
      return "mesh-two-step needs the same number of ranks on every device: device '" +
             device.name + "' of topology '" + p.topology->name + "' has " +
             std::to_string(device.ranks.size()) + ", device '" + first->name + "' has " +
             std::to_string(first->ranks.size());
  }
  return std::nullopt;
}

/// Two-step reduce-scatter of `chunk` to `dest`; returns the full reduction at `dest`.
/// Writes are emitted in ring-shift order (from the next device on) so that every rank
/// sends to a different peer in each round, each shift on a channel of its own; folds stay in
/// device, then local, order.
Value meshReduce(ScheduleBuilder &b, const Devices &devices,
                 const std::vector<std::pair<int, int>> &where, int dest, int chunk,
                 int firstStep) {
  int destDevice = where[dest].first, deviceCount = int(devices.size());
  int local = int(devices[destDevice].size());
  SmallVector<Value> partials(local);
  for (int shift = 0; shift < local; ++shift) {
    int i = (where[dest].second + shift + 1) % local;  // the destination's own index last
    int collector = devices[destDevice][i];
    SmallVector<Value> operands(deviceCount);
    b.setStep(firstStep);
    for (int k = 1; k <= deviceCount; ++k) {
      int e = (destDevice + k) % deviceCount;  // the collector's own device last
      Value mine = b.input(devices[e][i], chunk);
      // Each ring shift on its own channel: a rank's writes to its peer devices go out at once,
      // as the mesh's direct links allow, instead of one after another.
      b.setChannel((k - 1) % int(kMaxChannels));
      operands[e] = e == destDevice ? mine : b.copy(mine, collector);
    }
    b.setChannel(-1);
    b.setStep(firstStep + 1);
    const Value reduced = b.reduce(operands, collector);
    partials[i] = collector == dest ? reduced : b.copy(reduced, dest);
  }
  Value result = b.reduce(partials, dest);
  b.setStep(-1);
  return result;
}

/// `group` rotated to start after position `pos` and without it: the peers of group[pos] in
/// ring-shift order.
SmallVector<int> peersAfter(const std::vector<int> &group, int pos) {
  SmallVector<int> peers;
  for (int k = 1; k < int(group.size()); ++k) peers.push_back(group[(pos + k) % group.size()]);
  return peers;
}

/// Two-step allgather of `value` (resident at `owner`), bound as output `chunk` everywhere.
void meshGather(ScheduleBuilder &b, const Devices &devices,
                const std::vector<std::pair<int, int>> &where, int owner, Value value,
                int chunk, int firstStep) {
  auto [ownerDevice, local] = where[owner];
  std::vector<int> sameIndex;
  for (const auto &device : devices) sameIndex.push_back(device[local]);
  SmallVector<int> peers = peersAfter(sameIndex, ownerDevice);
  SmallVector<std::pair<int, Value>> holders = {{owner, value}};
  b.setStep(firstStep);
  if (!peers.empty()) {
    SmallVector<Value> copies = b.dup(value, peers);
    for (size_t k = 0; k < peers.size(); ++k) holders.push_back({peers[k], copies[k]});
  }
  b.setStep(firstStep + 1);
  for (auto [holder, held] : holders) {
    b.output(held, holder, chunk);
    auto [device, index] = where[holder];
    SmallVector<int> neighbours = peersAfter(devices[device], index);
    if (neighbours.empty()) continue;
    SmallVector<Value> copies = b.dup(held, neighbours);
    for (size_t k = 0; k < neighbours.size(); ++k) b.output(copies[k], neighbours[k], chunk);
  }
  b.setStep(-1);
}

void buildTwoStep(ScheduleBuilder &b, const AlgorithmParams &p) {
  int n = b.ranks();
  Devices devices = meshDevices(p, n);
  auto where = placement(devices, n);
  for (int rank = 0; rank < n; ++rank) {
    switch (b.spec().kind) {
    case CollectiveKind::ReduceScatter:
      b.output(meshReduce(b, devices, where, rank, rank, 0), rank, 0);
      break;
    case CollectiveKind::AllGather:
      meshGather(b, devices, where, rank, b.input(rank, 0), rank, 0);
      break;
    default:  // allreduce: chunk `rank` is reduced at `rank`, then gathered from there
      meshGather(b, devices, where, rank, meshReduce(b, devices, where, rank, rank, 0), rank,
                 2);
      break;
    }
  }
}

void buildSingleStep(ScheduleBuilder &b, const AlgorithmParams &) {
  int n = b.ranks();
  // received[r][s]: rank s's input, resident at rank r.
  std::vector<SmallVector<Value>> received(n, SmallVector<Value>(n));
  b.setStep(0);
  for (int s = 0; s < n; ++s) {
    Value mine = b.input(s, 0);
    received[s][s] = mine;
    SmallVector<int> peers;  // ring-shift order: in each round every rank feeds another peer
    for (int k = 1; k < n; ++k) peers.push_back((s + k) % n);
    if (peers.empty()) continue;
    SmallVector<Value> copies = b.dup(mine, peers);
    for (size_t k = 0; k < peers.size(); ++k) received[peers[k]][s] = copies[k];
  }
  b.setStep(1);
  for (int r = 0; r < n; ++r) b.output(b.reduce(received[r], r), r, 0);
  b.setStep(-1);
}

}  // namespace

void registerMeshAlgorithms(AlgorithmRegistry &registry) {
  AlgorithmInfo twoStep;
  twoStep.name = "mesh-two-step";
  twoStep.summary = "direct writes to the same-index rank of every peer device, then an "
                    "intra-device exchange (allreduce = reduce-scatter + allgather)";
  twoStep.kinds = {CollectiveKind::ReduceScatter, CollectiveKind::AllGather,
                   CollectiveKind::AllReduce};
  twoStep.check = checkTwoStep;
  twoStep.chunks = [](const CollectiveSpec &s, const AlgorithmParams &) { return s.ranks; };
  twoStep.build = buildTwoStep;
  twoStep.messages = [](const CollectiveSpec &s, const AlgorithmParams &p) -> std::optional<int> {
    if (p.getInt("ranks-per-device") != 1) return std::nullopt;
    return (s.kind == CollectiveKind::AllReduce ? 2 : 1) * (s.ranks - 1);
  };
  twoStep.params = {intParam("ranks-per-device", 1, 1, kMaxRanks,
                              "ranks per device (the topology's devices when it is given)",
                              "rpd")};
  twoStep.tuning = {deviceGroupingAxis()};
  registry.add(std::move(twoStep));

  AlgorithmInfo singleStep;
  singleStep.name = "mesh-single-step";
  singleStep.summary = "every rank duplicates its whole input to all peers; each folds all "
                       "inputs in rank order";
  singleStep.kinds = {CollectiveKind::AllReduce};
  singleStep.chunks = [](const CollectiveSpec &, const AlgorithmParams &) { return 1; };
  singleStep.build = buildSingleStep;
  singleStep.messages = messagesToEveryPeer<1>;
  registry.add(std::move(singleStep));
}

}  // namespace collplan
