// Link-disjoint Hamiltonian cycles over a topology's devices (torus decomposition, Gray code,
// bounded search).
#include "runtime/topology/Queries.h"

#include "runtime/topology/TopologyError.h"

#include <algorithm>
#include <set>

namespace collplan {
namespace {

using DevicePair = std::pair<int, int>;

DevicePair pairOf(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

bool allDevicesHaveCoords(const Topology &topo) {
  if (topo.dims.empty()) return false;
  for (const Device &device : topo.devices)
    if (device.coords.size() != topo.dims.size()) return false;
  return true;
}

/// Maps a cycle of positions to devices; empty when a position holds no device.
std::vector<int> devicesAt(const Topology &topo, const std::vector<std::vector<int>> &positions) {
  std::vector<int> cycle;
  for (const std::vector<int> &coords : positions) {
    std::optional<int> device = deviceAt(topo, coords);
    if (!device) return {};
    cycle.push_back(*device);
  }
  return cycle;
}

/// The two cycles decomposing a k x k wrapping torus. Cycle A walks each row k-1 steps to the
/// right and steps down, entering the next row one column further left; cycle B walks each
/// column down and steps right, entering the next column one row higher. A skips exactly the
/// row edges and uses exactly the column edges that B needs, so together they use every link
/// once.
std::vector<std::vector<int>> squareTorusCycles(const Topology &topo) {
  int k = topo.dims[0];
  std::vector<std::vector<int>> rowsFirst, columnsFirst;
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      rowsFirst.push_back({i, ((j - i) % k + k) % k});
      columnsFirst.push_back({((j - i) % k + k) % k, i});
    }
  return {devicesAt(topo, rowsFirst), devicesAt(topo, columnsFirst)};
}

/// Reflected binary Gray code over a hypercube's coordinates.
std::vector<int> grayCodeCycle(const Topology &topo) {
  int dims = int(topo.dims.size());
  std::vector<std::vector<int>> positions;
  for (int i = 0; i < (1 << dims); ++i) {
    int gray = i ^ (i >> 1);
    std::vector<int> coords(dims);
    for (int k = 0; k < dims; ++k)
      coords[k] = (gray >> (dims - 1 - k)) & 1;
    positions.push_back(coords);
  }
  return devicesAt(topo, positions);
}

/// Depth-first search for one Hamiltonian cycle through device-to-device links not in `used`,
/// visiting the neighbour with the fewest free neighbours first (Warnsdorff's rule), giving up
/// after a fixed number of steps.
class CycleSearch {
public:
  CycleSearch(const Topology &topo, const std::set<DevicePair> &used) : topo_(topo) {
    int n = int(topo.devices.size());
    adjacent_.resize(n);
    for (const Link &link : topo.links)
      if (link.a < n && link.b < n && !used.count(pairOf(link.a, link.b))) {
        adjacent_[link.a].push_back(link.b);
        adjacent_[link.b].push_back(link.a);
      }
    for (std::vector<int> &list : adjacent_) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
  }

  std::vector<int> find() {
    int n = int(adjacent_.size());
    visited_.assign(n, false);
    path_ = {0};
    visited_[0] = true;
    steps_ = 0;
    if (extend()) return path_;
    return {};
  }

private:
  bool closes() const {
    const std::vector<int> &first = adjacent_[path_.front()];
    return std::binary_search(first.begin(), first.end(), path_.back());
  }

  int freeDegree(int v) const {
    int count = 0;
    for (int w : adjacent_[v])
      count += !visited_[w];
    return count;
  }

  bool extend() {
    if (++steps_ > kMaxSteps) return false;
    if (path_.size() == adjacent_.size()) return closes();
    std::vector<int> candidates;
    for (int w : adjacent_[path_.back()])
      if (!visited_[w]) candidates.push_back(w);
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](int x, int y) { return freeDegree(x) < freeDegree(y); });
    for (int w : candidates) {
      visited_[w] = true;
      path_.push_back(w);
      if (extend()) return true;
      path_.pop_back();
      visited_[w] = false;
      if (steps_ > kMaxSteps) return false;
    }
    return false;
  }

  static constexpr long kMaxSteps = 200000;
  const Topology &topo_;
  std::vector<std::vector<int>> adjacent_;
  std::vector<bool> visited_;
  std::vector<int> path_;
  long steps_ = 0;
};

/// True when `cycle` visits every device once, consecutive devices are linked, and no pair of
/// consecutive devices is in `used`.
bool isFreeHamiltonianCycle(const Topology &topo, const std::vector<int> &cycle,
                            const std::set<DevicePair> &used) {
  int n = int(topo.devices.size());
  if (int(cycle.size()) != n) return false;
  std::vector<bool> seen(n, false);
  for (int d : cycle) {
    if (d < 0 || d >= n || seen[d]) return false;
    seen[d] = true;
  }
  for (size_t i = 0; i < cycle.size(); ++i) {
    int a = cycle[i], b = cycle[(i + 1) % cycle.size()];
    if (directLink(topo, a, b) < 0 || used.count(pairOf(a, b))) return false;
  }
  return true;
}

} // namespace

std::vector<std::vector<int>> hamiltonianCycles(const Topology &topo, int count) {
  std::vector<std::vector<int>> cycles;
  int n = int(topo.devices.size());
  if (count <= 0 || n == 0) return cycles;
  if (n == 1) return {{0}};
  if (n == 2) {
    if (directLink(topo, 0, 1) >= 0) cycles.push_back({0, 1});
    return cycles;
  }

  std::vector<std::vector<int>> candidates;
  if (allDevicesHaveCoords(topo)) {
    bool squareTorus =
        topo.dims.size() == 2 && topo.wrap && topo.dims[0] == topo.dims[1] && topo.dims[0] >= 3;
    bool hypercube = std::all_of(topo.dims.begin(), topo.dims.end(), [](int e) { return e == 2; });
    if (squareTorus)
      candidates = squareTorusCycles(topo);
    else if (hypercube)
      candidates.push_back(grayCodeCycle(topo));
  }

  std::set<DevicePair> used;
  auto accept = [&](const std::vector<int> &cycle) {
    if (int(cycles.size()) >= count || !isFreeHamiltonianCycle(topo, cycle, used)) return false;
    for (size_t i = 0; i < cycle.size(); ++i)
      used.insert(pairOf(cycle[i], cycle[(i + 1) % cycle.size()]));
    cycles.push_back(cycle);
    return true;
  };
  for (const std::vector<int> &cycle : candidates)
    accept(cycle);
  while (int(cycles.size()) < count) {
    std::vector<int> found = CycleSearch(topo, used).find();
    if (found.empty() || !accept(found)) break;
  }
  return cycles;
}

} // namespace collplan
