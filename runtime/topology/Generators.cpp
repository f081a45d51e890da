// Simple generated topologies: ring, line, switch, fully connected, hypercube, torus.
#include "runtime/topology/Generators.h"

#include "runtime/topology/GeneratorSupport.h"
#include "runtime/topology/TopologyError.h"

namespace collplan {

namespace {

/// Devices 0..n-1 in a chain along one dimension; `wrap` closes it into a ring.
Topology chain(const char *kind, int n, bool wrap, const GeneratorParams &params) {
  std::string origin = std::string(kind) + "(" + std::to_string(n) + ")";
  checkCount(origin, "devices", n, 1);
  Topology topo = baseTopology(std::string(kind) + "-" + std::to_string(n), n, params, origin);
  topo.dims = {n};
  topo.wrap = wrap;
  for (int d = 0; d < n; ++d)
    topo.devices[d].coords = {d};
  for (int d = 0; d + 1 < n; ++d)
    addLink(topo, d, d + 1, params.link, 0);
  if (wrap && n >= 3) addLink(topo, n - 1, 0, params.link, 0);
  return finish(std::move(topo), origin);
}

}  // namespace

Topology ring(int n, const GeneratorParams &params) { return chain("ring", n, true, params); }

Topology line(int n, const GeneratorParams &params) { return chain("line", n, false, params); }

Topology switchTopology(int n, const GeneratorParams &params) {
  std::string origin = "switch(" + std::to_string(n) + ")";
  checkCount(origin, "devices", n, 1);
  Topology topo = baseTopology("switch-" + std::to_string(n), n, params, origin);
  topo.switches.push_back(Switch{"switch", "switch"});
  for (int d = 0; d < n; ++d)
    addLink(topo, d, n, params.link, -1);
  return finish(std::move(topo), origin);
}

Topology fullyConnected(int n, const GeneratorParams &params) {
  std::string origin = "fullyConnected(" + std::to_string(n) + ")";
  checkCount(origin, "devices", n, 1);
  checkAtMost(origin, "devices", n, 4096); // n(n-1)/2 links
  Topology topo = baseTopology("full-" + std::to_string(n), n, params, origin);
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      addLink(topo, a, b, params.link, -1);
  return finish(std::move(topo), origin);
}

Topology torus(const std::vector<int> &dims, int ranksPerChip, const GeneratorParams &params) {
  std::string shape;
  for (int extent : dims)
    shape += (shape.empty() ? "" : "x") + std::to_string(extent);
  std::string origin = "torus(" + shape + ", " + std::to_string(ranksPerChip) + " ranks per chip)";
  if (dims.empty()) throw TopologyError(origin, "dims", "needs at least one dimension");
  long long chips = 1;
  for (int extent : dims) {
    checkCount(origin, "dims", extent, 1);
    chips *= extent;
    checkAtMost(origin, "chips", chips, kMaxGeneratedRanks);
  }
  GeneratorParams withRanks = params;
  withRanks.ranksPerDevice = ranksPerChip;
  Topology topo = baseTopology("torus-" + shape + "x" + std::to_string(ranksPerChip), int(chips),
                               withRanks, origin);
  topo.dims = dims;
  topo.wrap = true;
  topo.routing = Routing::DimensionOrder;
  for (int d = 0; d < int(chips); ++d) {
    std::vector<int> coords(dims.size());
    for (int k = int(dims.size()) - 1, rest = d; k >= 0; --k) {
      coords[k] = rest % dims[k];
      rest /= dims[k];
    }
    topo.devices[d].coords = coords;
  }
  // One link from each chip to its + neighbour in each dimension; the wrap-around link only
  // where it is a different pair (extent >= 3).
  for (int d = 0; d < int(chips); ++d)
    for (int k = 0; k < int(dims.size()); ++k) {
      int extent = dims[k], here = topo.devices[d].coords[k];
      if (extent == 1 || (here + 1 == extent && extent < 3)) continue;
      std::vector<int> coords = topo.devices[d].coords;
      coords[k] = (here + 1) % extent;
      int stride = 1;
      for (int j = int(dims.size()) - 1; j > k; --j)
        stride *= dims[j];
      int neighbour = d + (coords[k] - here) * stride;
      addLink(topo, d, neighbour, params.link, k);
    }
  return finish(std::move(topo), origin);
}

Topology torus2d(int x, int y, int ranksPerChip, const GeneratorParams &params) {
  return torus({x, y}, ranksPerChip, params);
}

Topology hypercube(int dims, const GeneratorParams &params) {
  std::string origin = "hypercube(" + std::to_string(dims) + ")";
  checkCount(origin, "dims", dims, 0);
  checkAtMost(origin, "dims", dims, 16);  // 2^16 ranks: kMaxGeneratedRanks
  if (dims == 0) {
    Topology topo = baseTopology("hypercube-0", 1, params, origin);
    return finish(std::move(topo), origin);
  }
  Topology topo = torus(std::vector<int>(dims, 2), params.ranksPerDevice, params);
  topo.name = "hypercube-" + std::to_string(dims);
  return topo;
}

} // namespace collplan
