// Recursive doubling / halving lowerings: recursive-doubling (allgather, allreduce),
// recursive-halving (reduce-scatter), Rabenseifner (allreduce = halving RS + doubling AG) and
// RDH, which runs them stage by stage over the dimensions of a hypercube or torus of devices,
// with an intra-device stage first (reduce-scatter) and last (allgather).
//
// Groups whose size is not a power of two use MPICH's fold: of the first 2*rem members, each
// even one hands its data to the next (odd) one before the exchanges and gets its result back
// after them, so the exchanges run among a power of two of members.
#include "compiler/lowering/Algorithms.h"
#include "runtime/core/Text.h"

#include "runtime/topology/Topology.h"

#include <map>
#include <numeric>

using namespace mlir;

namespace collplan {
namespace {

/// MPICH's fold of a group of `size` members onto a power of two of "virtual" members.
struct Fold {
  explicit Fold(int size) : pow2(floorPowerOfTwo(size)), rem(size - pow2) {}
  int pow2, rem;
  /// Members that hand their data to the next member and sit out the exchanges.
  bool isExtra(int pos) const { return pos < 2 * rem && pos % 2 == 0; }
  /// The virtual member a position belongs to (an extra belongs to its partner's).
  int virtualOf(int pos) const { return pos < 2 * rem ? pos / 2 : pos - rem; }
  int positionOf(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  /// Rounds of one recursive halving or doubling over the group: the fold and the unfold
  /// each take one, unless the extras own no blocks (allreduce), when only one of them moves
  /// data (the fold of the halving, the unfold of the doubling).
  int rounds(bool extrasOwn) const { return ceilLog2(pow2) + (rem ? (extrasOwn ? 2 : 1) : 0); }
};

// ---- the grid of stages --------------------------------------------------------------------

/// The ranks as a mixed-radix grid: stage s groups the ranks that differ only in coordinate s.
struct Grid {
  std::vector<int> extents;              ///< per stage
  std::vector<std::vector<int>> coords;  ///< coords[rank][stage]

  /// Each group of stage `s`: its members in order of their coordinate s.
  std::vector<std::vector<int>> groups(int s) const {
    std::map<std::vector<int>, int> rankAt;
    for (int r = 0; r < int(coords.size()); ++r) rankAt[coords[r]] = r;
    std::vector<std::vector<int>> result;
    for (int r = 0; r < int(coords.size()); ++r) {
      if (coords[r][s] != 0) continue;
      std::vector<int> members, at = coords[r];
      for (int x = 0; x < extents[s]; ++x) {
        at[s] = x;
        members.push_back(rankAt.at(at));
      }
      result.push_back(members);
    }
    return result;
  }
};

/// Rank = local + perDevice * device, devices numbered in mixed radix over `dims` (dimension 0
/// fastest); stages: [perDevice, dims...].
Grid gridFromDims(int perDevice, const std::vector<int> &dims) {
  Grid grid;
  grid.extents.push_back(perDevice);
  grid.extents.insert(grid.extents.end(), dims.begin(), dims.end());
  int ranks = std::accumulate(grid.extents.begin(), grid.extents.end(), 1, std::multiplies<>());
  grid.coords.assign(ranks, {});
  for (int r = 0; r < ranks; ++r)
    for (int s = 0, rest = r; s < int(grid.extents.size()); rest /= grid.extents[s++])
      grid.coords[r].push_back(rest % grid.extents[s]);
  return grid;
}

std::string listText(const std::vector<int> &values) { return "[" + joined(values) + "]"; }

/// The grid of a topology: the stage of each device's ranks, then its torus / hypercube
/// dimensions (or one dimension over the devices when it has none).
std::optional<std::string> gridFromTopology(const Topology &topo, int ranksPerDevice, Grid &grid) {
  std::string where = "topology '" + topo.name + "'";
  if (topo.devices.empty()) return where + " has no devices";
  int perDevice = int(topo.devices.front().ranks.size());
  for (const Device &d : topo.devices)
    if (int(d.ranks.size()) != perDevice)
      return where + " has devices with different numbers of ranks (" +
             std::to_string(perDevice) + " and " + std::to_string(d.ranks.size()) +
             "): rdh needs the same number on every device";
  if (ranksPerDevice != 1 && ranksPerDevice != perDevice)
    return "ranks per device " + std::to_string(ranksPerDevice) + " disagrees with " + where +
           " (" + std::to_string(perDevice) + " ranks per device)";
  std::vector<int> dims = topo.dims;
  if (dims.empty()) dims = {int(topo.devices.size())};
  grid.extents = {perDevice};
  grid.extents.insert(grid.extents.end(), dims.begin(), dims.end());
  grid.coords.assign(topo.numRanks(), {});
  std::map<std::vector<int>, int> seen;
  for (int d = 0; d < int(topo.devices.size()); ++d) {
    std::vector<int> at = topo.dims.empty() ? std::vector<int>{d} : topo.devices[d].coords;
    bool inside = at.size() == dims.size();
    for (size_t i = 0; inside && i < at.size(); ++i) inside = at[i] >= 0 && at[i] < dims[i];
    if (!inside)
      return where + ": device " + std::to_string(d) + " has coordinates " + listText(at) +
             " outside dims " + listText(dims);
    if (!seen.emplace(at, d).second)
      return where + ": devices " + std::to_string(seen[at]) + " and " + std::to_string(d) +
             " share coordinates " + listText(at);
    for (int local = 0; local < perDevice; ++local) {
      int rank = topo.devices[d].ranks[local];
      if (rank < 0 || rank >= int(grid.coords.size()) || !grid.coords[rank].empty())
        return where + ": rank " + std::to_string(rank) + " is out of range or on two devices";
      grid.coords[rank] = {local};
      grid.coords[rank].insert(grid.coords[rank].end(), at.begin(), at.end());
    }
  }
  int devices = std::accumulate(dims.begin(), dims.end(), 1, std::multiplies<>());
  if (devices != int(topo.devices.size()))
    return where + " dims " + listText(dims) + " give " + std::to_string(devices) +
           " devices, but it has " + std::to_string(topo.devices.size());
  return std::nullopt;
}

/// The grid RDH runs over: `dims` and ranks per device when given, else the topology's,
/// else one dimension over N / ranksPerDevice devices.
std::optional<std::string> rdhGrid(const CollectiveSpec &spec, const AlgorithmParams &p,
                                   Grid &grid) {
  if (auto bad = checkDeviceGrouping(spec, p)) return bad;
  const int perDevice = p.getInt("ranks-per-device");
  const std::vector<int> &given = p.getIntList("dims");
  if (given.empty() && p.topology) {
    if (p.topology->numRanks() != spec.ranks)
      return "the topology has " + std::to_string(p.topology->numRanks()) +
             " ranks, the collective " + std::to_string(spec.ranks);
    return gridFromTopology(*p.topology, perDevice, grid);
  }
  int devices = spec.ranks / perDevice;
  std::vector<int> dims = given.empty() ? std::vector<int>{devices} : given;
  long long product = 1;
  for (int d : dims) product = std::min<long long>(product * d, 1LL << 40);
  if (product != devices)
    return "dims " + listText(dims) + " give " + std::to_string(product) + " devices, but " +
           std::to_string(spec.ranks) + " ranks / " + std::to_string(perDevice) +
           " ranks per device = " + std::to_string(devices) + " devices";
  grid = gridFromDims(perDevice, dims);
  return std::nullopt;
}

Grid singleStage(int ranks) { return gridFromDims(ranks, {}); }

// ---- stages --------------------------------------------------------------------------------

/// Partial sums not folded yet, per rank and block: folded (in order) when sent or finished.
using Pending = SmallVector<Value, 4>;
using PendingByRank = std::vector<std::map<int, Pending>>;
using ValuesByRank = std::vector<std::map<int, Value>>;
/// The position (in its group of stage `stage`) of the member that ends up with `block`.
using OwnerPosition = std::function<int(int block, int stage)>;

/// Recursive halving over one group: afterwards each member holds the blocks it owns (pending
/// folds), summed over the group. Sends fold their pending operands on the way (a reduce sent on),
/// and the lower member's partial always comes first.
void halvingStage(ScheduleBuilder &b, PendingByRank &held, const std::vector<int> &group,
                  int stage, const OwnerPosition &owner, bool extrasOwn, int firstStep) {
  Fold fold(int(group.size()));
  int step = firstStep;
  auto send = [&](int from, int to, int block, bool senderFirst) {
    Value moved = b.copy(b.reduce(held[from][block], from), to);
    Pending &into = held[to][block];
    into.insert(senderFirst ? into.begin() : into.end(), moved);
  };
  if (fold.rem) {
    b.setStep(step++);
    for (int pos = 0; pos < 2 * fold.rem; pos += 2) {
      for (auto &entry : held[group[pos]]) send(group[pos], group[pos + 1], entry.first, true);
      held[group[pos]].clear();
    }
  }
  for (int distance = fold.pow2 / 2; distance >= 1; distance /= 2) {
    b.setStep(step++);
    // Every member sends the half it gives away before anyone folds what it receives.
    std::vector<std::vector<std::pair<int, Value>>> arriving(fold.pow2);
    for (int v = 0; v < fold.pow2; ++v) {
      int self = group[fold.positionOf(v)], partner = group[fold.positionOf(v ^ distance)];
      auto &mine = held[self];
      for (auto it = mine.begin(); it != mine.end();) {
        int ownerV = fold.virtualOf(owner(it->first, stage));
        if ((ownerV & distance) == (v & distance)) {
          ++it;
          continue;
        }
        arriving[v ^ distance].push_back(
            {it->first, b.copy(b.reduce(it->second, self), partner)});
        it = mine.erase(it);
      }
    }
    for (int v = 0; v < fold.pow2; ++v)
      for (auto &[block, value] : arriving[v]) {
        Pending &into = held[group[fold.positionOf(v)]][block];
        into.insert((v ^ distance) < v ? into.begin() : into.end(), value);
      }
  }
  if (fold.rem && extrasOwn) {
    b.setStep(step++);
    for (int pos = 0; pos < 2 * fold.rem; pos += 2) {
      auto &partner = held[group[pos + 1]];
      for (auto it = partner.begin(); it != partner.end();) {
        if (owner(it->first, stage) != pos) {
          ++it;
          continue;
        }
        held[group[pos]][it->first] = {
            b.copy(b.reduce(it->second, group[pos + 1]), group[pos])};
        it = partner.erase(it);
      }
    }
  }
}

/// Recursive doubling over one group: afterwards every member holds the union of the group's
/// blocks. Extras hand theirs to their partner first and get everything back last.
void doublingStage(ScheduleBuilder &b, ValuesByRank &held, const std::vector<int> &group,
                   bool extrasOwn, int firstStep) {
  Fold fold(int(group.size()));
  int step = firstStep;
  if (fold.rem && extrasOwn) {
    b.setStep(step++);
    for (int pos = 0; pos < 2 * fold.rem; pos += 2)
      for (auto &[block, value] : held[group[pos]])
        held[group[pos + 1]][block] = b.copy(value, group[pos + 1]);
  }
  for (int distance = 1; distance < fold.pow2; distance *= 2) {
    b.setStep(step++);
    std::vector<std::vector<std::pair<int, Value>>> arriving(fold.pow2);
    for (int v = 0; v < fold.pow2; ++v) {
      int self = group[fold.positionOf(v)], partner = group[fold.positionOf(v ^ distance)];
      for (auto &[block, value] : held[self])
        arriving[v ^ distance].push_back({block, b.copy(value, partner)});
    }
    for (int v = 0; v < fold.pow2; ++v)
      for (auto &[block, value] : arriving[v]) held[group[fold.positionOf(v)]][block] = value;
  }
  if (fold.rem) {
    // The extra takes all its partner holds, its own blocks included: one contiguous message
    // (the union of the group's blocks) instead of the ranges on either side of its own.
    b.setStep(step++);
    for (int pos = 0; pos < 2 * fold.rem; pos += 2)
      for (auto &[block, value] : held[group[pos + 1]])
        held[group[pos]][block] = b.copy(value, group[pos]);
  }
}

/// Reduce-scatter stage by stage (stages in order); returns the next free step.
int reduceScatterOverGrid(ScheduleBuilder &b, const Grid &grid, PendingByRank &held,
                          const OwnerPosition &owner, bool extrasOwn) {
  int step = 0;
  for (int s = 0; s < int(grid.extents.size()); ++s) {
    for (const auto &group : grid.groups(s))
      halvingStage(b, held, group, s, owner, extrasOwn, step);
    step += Fold(grid.extents[s]).rounds(extrasOwn);
  }
  b.setStep(-1);
  return step;
}

/// Allgather stage by stage, in reverse stage order (the intra-device stage last).
void allgatherOverGrid(ScheduleBuilder &b, const Grid &grid, ValuesByRank &held, bool extrasOwn,
                       int step) {
  for (int s = int(grid.extents.size()) - 1; s >= 0; --s) {
    for (const auto &group : grid.groups(s)) doublingStage(b, held, group, extrasOwn, step);
    step += Fold(grid.extents[s]).rounds(extrasOwn);
  }
  b.setStep(-1);
}

/// Reduce-scatter (each rank r ends with block r), allgather, or allreduce over `grid`.
void buildOverGrid(ScheduleBuilder &b, const Grid &grid) {
  const CollectiveSpec &spec = b.spec();
  int n = spec.ranks;
  switch (spec.kind) {
  case CollectiveKind::ReduceScatter: {
    PendingByRank held(n);
    for (int r = 0; r < n; ++r)
      for (int block = 0; block < n; ++block) held[r][block] = {b.input(r, block)};
    reduceScatterOverGrid(b, grid, held,
                          [&](int block, int stage) { return grid.coords[block][stage]; },
                          /*extrasOwn=*/true);
    for (int r = 0; r < n; ++r) b.output(b.reduce(held[r][r], r), r, 0);
    break;
  }
  case CollectiveKind::AllGather: {
    ValuesByRank held(n);
    for (int r = 0; r < n; ++r) held[r][r] = b.input(r, 0);
    allgatherOverGrid(b, grid, held, /*extrasOwn=*/true, 0);
    for (int r = 0; r < n; ++r)
      for (auto &[block, value] : held[r]) b.output(value, r, block);
    break;
  }
  default: {
    // Chunk c's digit s (mixed radix over the stages' powers of two) names the virtual member
    // of its stage-s group that owns it: every non-extra rank owns an equal share. The first
    // stage takes the most significant digit, so each stage halves a contiguous range of chunks
    // and every exchange is one message (the last stage's digit is the least significant).
    std::vector<int> strides(grid.extents.size());
    for (int s = int(grid.extents.size()) - 1, stride = 1; s >= 0;
         stride *= floorPowerOfTwo(grid.extents[s--]))
      strides[size_t(s)] = stride;
    OwnerPosition owner = [&](int chunk, int stage) {
      Fold fold(grid.extents[stage]);
      return fold.positionOf(chunk / strides[stage] % fold.pow2);
    };
    PendingByRank pending(n);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < spec.chunks; ++c) pending[r][c] = {b.input(r, c)};
    int step = reduceScatterOverGrid(b, grid, pending, owner, /*extrasOwn=*/false);
    ValuesByRank held(n);
    for (int r = 0; r < n; ++r)
      for (auto &[chunk, operands] : pending[r]) held[r][chunk] = b.reduce(operands, r);
    allgatherOverGrid(b, grid, held, /*extrasOwn=*/false, step);
    for (int r = 0; r < n; ++r)
      for (auto &[chunk, value] : held[r]) b.output(value, r, chunk);
    break;
  }
  }
}

/// Messages of the busiest rank (a folded rank's partner) over stages of these extents: per
/// stage, floor(log2 e) exchanges (twice for allreduce: halving, then doubling) and one to the
/// folded rank where e is not a power of two (its share, or its result).
int rdhMessages(CollectiveKind kind, const std::vector<int> &extents) {
  int messages = 0;
  for (int e : extents) {
    messages += foldedRounds(e);
    if (kind == CollectiveKind::AllReduce) messages += ceilLog2(floorPowerOfTwo(e));
  }
  return messages;
}

/// One message per round of a folded recursive doubling or halving over all ranks.
std::optional<int> foldedMessages(const CollectiveSpec &s, const AlgorithmParams &) {
  return foldedRounds(s.ranks);
}

/// Chunks of an allreduce over `grid`: Π over stages of the largest power of two <= extent.
int gridChunks(const Grid &grid) {
  int chunks = 1;
  for (int extent : grid.extents) chunks *= floorPowerOfTwo(extent);
  return chunks;
}

// ---- recursive doubling allreduce ----------------------------------------------------------

/// Whole-message recursive doubling: partners exchange everything and both fold the lower
/// rank's half first, so every copy of the result has the same reduction tree.
void buildDoublingAllreduce(ScheduleBuilder &b) {
  int n = b.ranks();
  Fold fold(n);
  std::vector<Value> value(n);
  for (int r = 0; r < n; ++r) value[r] = b.input(r, 0);
  int step = 0;
  if (fold.rem) {
    b.setStep(step++);
    for (int pos = 0; pos < 2 * fold.rem; pos += 2)
      value[pos + 1] = b.reduce({b.copy(value[pos], pos + 1), value[pos + 1]}, pos + 1);
  }
  for (int distance = 1; distance < fold.pow2; distance *= 2) {
    b.setStep(step++);
    std::vector<Value> arrived(n);
    for (int v = 0; v < fold.pow2; ++v) {
      int partner = fold.positionOf(v ^ distance);
      arrived[partner] = b.copy(value[fold.positionOf(v)], partner);
    }
    for (int v = 0; v < fold.pow2; ++v) {
      int self = fold.positionOf(v);
      bool lower = v < (v ^ distance);
      value[self] = lower ? b.reduce({value[self], arrived[self]}, self)
                          : b.reduce({arrived[self], value[self]}, self);
    }
  }
  if (fold.rem) {
    b.setStep(step++);
    for (int pos = 0; pos < 2 * fold.rem; pos += 2) value[pos] = b.copy(value[pos + 1], pos);
  }
  b.setStep(-1);
  for (int r = 0; r < n; ++r) b.output(value[r], r, 0);
}

// ---- registration --------------------------------------------------------------------------

void buildRecursiveDoubling(ScheduleBuilder &b, const AlgorithmParams &) {
  if (b.spec().kind == CollectiveKind::AllReduce) buildDoublingAllreduce(b);
  else buildOverGrid(b, singleStage(b.ranks()));
}

void buildSingleStage(ScheduleBuilder &b, const AlgorithmParams &) {
  buildOverGrid(b, singleStage(b.ranks()));
}

void buildRdh(ScheduleBuilder &b, const AlgorithmParams &p) {
  Grid grid;
  if (!rdhGrid(b.spec(), p, grid)) buildOverGrid(b, grid);
}

/// Rank 0's program of recursive doubling on a power of two, every other rank's its XOR image:
/// in round j rank 0 exchanges with rank 2^j. The allgather sends the 2^j blocks it holds and
/// receives the partner's 2^j; the allreduce sends its partial sum and folds the partner's in,
/// the lower rank's partial first (a rank-ordered receive), into scratch until the last round
/// writes the output. Other rank counts fold ranks in and are compiled from every rank's
/// schedule.
std::optional<SymmetricProgram> doublingSymmetricProgram(const CollectiveSpec &spec,
                                                         const AlgorithmParams &) {
  const int n = spec.ranks;
  if (n < 2 || (n & (n - 1)) != 0) return std::nullopt;
  int rounds = 0;
  while ((1 << rounds) < n) ++rounds;
  // On 2 ranks XOR and rotation are one map; plans name it rotation (findSymmetry's order).
  const SymmetryGroup group = n == 2 ? SymmetryGroup::Rotation : SymmetryGroup::Xor;
  SymmetricProgram out;
  std::vector<PlanOp> &ops = out.base.channel(0);
  auto op = [&](OpKind kind, int step) -> PlanOp & {
    ops.emplace_back();
    ops.back().kind = kind;
    ops.back().step = step;
    return ops.back();
  };
  if (spec.kind == CollectiveKind::AllGather) {
    out.symmetry = PlanSymmetry{group, 1, {}};
    out.units = uint32_t(n);
    // The own block is copied into the output before the first send reads it from the input
    // when a later round sends it from the output; in place that reads `in` after writing the
    // `out` unit it aliases, so only a 2-rank plan (its copy after the send) is in-place safe.
    const bool copyFirst = rounds > 1;
    out.inplaceSafe = !copyFirst;
    auto copyOwn = [&] {
      PlanOp &own = op(OpKind::Copy, -1);
      own.srcs = {unitRange(BufferKind::In, 0)};
      own.dsts = {unitRange(BufferKind::Out, 0)};
    };
    if (copyFirst) copyOwn();
    for (int j = 0, held = 1; j < rounds; ++j, held *= 2) {
      PlanOp &send = op(OpKind::Send, j + 1);
      send.srcs = {j == 0 ? unitRange(BufferKind::In, 0) : unitRange(BufferKind::Out, 0, held)};
      send.sends = {held};
      if (!copyFirst) copyOwn();
      PlanOp &recv = op(OpKind::Recv, j + 1);
      recv.recv = held;
      recv.dsts = {unitRange(BufferKind::Out, held, held)};
      out.addRound(double(held) / n);
    }
    out.transfers = int64_t(n) * (n - 1);  // block moves of the schedule, before coalescing
    out.bytesMoved = double(n - 1);        // each rank sends N-1 blocks of M / N
    return out;
  }
  out.symmetry = PlanSymmetry{group, 0, {}};
  out.units = 1;
  // Partial sums alternate between two scratch units (one is read while the next is written).
  out.scratchUnits = uint32_t(std::min(rounds - 1, 2));
  out.inplaceSafe = true;
  PlanOp &first = op(OpKind::Send, 1);
  first.srcs = {unitRange(BufferKind::In, 0)};
  first.sends = {1};
  for (int j = 0; j < rounds; ++j) {
    const bool last = j == rounds - 1;
    PlanOp &fold = op(last ? OpKind::RecvReduce : OpKind::RecvReduceSend, j + 1);
    fold.recv = 1 << j;
    fold.recvPos = 1;
    fold.srcs = {j == 0 ? unitRange(BufferKind::In, 0) : unitRange(BufferKind::Tmp, (j - 1) % 2)};
    fold.dsts = {last ? unitRange(BufferKind::Out, 0) : unitRange(BufferKind::Tmp, j % 2)};
    if (!last) fold.sends = {2 << j};
    out.symmetry.rankOrderedReceives.push_back(OpRef{0, uint32_t(ops.size() - 1)});
    out.addRound(1.0);
  }
  out.transfers = int64_t(rounds) * n;
  out.bytesMoved = double(rounds) * n;
  return out;
}

}  // namespace

void registerRdhAlgorithms(AlgorithmRegistry &registry) {
  AlgorithmInfo doubling;
  doubling.name = "recursive-doubling";
  doubling.summary = "recursive doubling: allgather of growing blocks, allreduce of the whole "
                     "message, log2 N rounds (non-powers of two folded)";
  doubling.kinds = {CollectiveKind::AllGather, CollectiveKind::AllReduce};
  doubling.chunks = [](const CollectiveSpec &, const AlgorithmParams &) { return 1; };
  doubling.build = buildRecursiveDoubling;
  doubling.symmetricProgram = doublingSymmetricProgram;
  doubling.messages = foldedMessages;
  registry.add(std::move(doubling));

  AlgorithmInfo halving;
  halving.name = "recursive-halving";
  halving.summary = "recursive halving reduce-scatter in log2 N rounds (non-powers of two "
                    "folded)";
  halving.kinds = {CollectiveKind::ReduceScatter};
  halving.build = buildSingleStage;
  halving.messages = foldedMessages;
  registry.add(std::move(halving));

  AlgorithmInfo rabenseifner;
  rabenseifner.name = "rabenseifner";
  rabenseifner.summary = "allreduce = reduce-scatter by recursive halving + allgather by "
                         "recursive doubling, 2 log2 N rounds";
  rabenseifner.kinds = {CollectiveKind::AllReduce};
  rabenseifner.chunks = [](const CollectiveSpec &s, const AlgorithmParams &) {
    return floorPowerOfTwo(s.ranks);
  };
  rabenseifner.build = buildSingleStage;
  rabenseifner.messages = [](const CollectiveSpec &s,
                             const AlgorithmParams &) -> std::optional<int> {
    return rdhMessages(s.kind, {s.ranks});
  };
  registry.add(std::move(rabenseifner));

  AlgorithmInfo rdh;
  rdh.name = "rdh";
  rdh.summary = "recursive halving / doubling across the dimensions of a hypercube or torus "
                "(dims, or the topology's), intra-device stage first / last";
  rdh.kinds = {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter,
               CollectiveKind::AllGather};
  rdh.check = [](const CollectiveSpec &s, const AlgorithmParams &p) {
    Grid grid;
    return rdhGrid(s, p, grid);
  };
  rdh.chunks = [](const CollectiveSpec &s, const AlgorithmParams &p) {
    Grid grid;
    return rdhGrid(s, p, grid) ? 1 : gridChunks(grid);
  };
  rdh.build = buildRdh;
  rdh.messages = [](const CollectiveSpec &s, const AlgorithmParams &p) -> std::optional<int> {
    Grid grid;
    if (rdhGrid(s, p, grid)) return std::nullopt;
    // With an intra-device stage, reduce-scatter and allgather keep blocks of every device:
    // a stride, one message per block (only allreduce halves contiguous ranges).
    if (p.getInt("ranks-per-device") != 1 && s.kind != CollectiveKind::AllReduce)
      return std::nullopt;
    return rdhMessages(s.kind, grid.extents);
  };
  rdh.params = {intListParam("dims", 1, kMaxRanks,
                             "extents of the device hypercube / torus (product = devices; "
                             "default: the topology's, else one dimension)"),
                intParam("ranks-per-device", 1, 1, kMaxRanks,
                         "ranks per device: the intra-device stage", "rpd")};
  rdh.tuning = {deviceGroupingAxis()};
  registry.add(std::move(rdh));
}

}  // namespace collplan
