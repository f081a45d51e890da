// Dinic's maximum flow with real capacities, and the minimum cut it leaves.
#include "runtime/topology/MaxFlow.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>

namespace collplan {
namespace {

/// Relative slack below which a residual capacity counts as saturated.
constexpr double kRelativeEpsilon = 1e-12;

void checkCapacity(double capacity) {
  if (!std::isfinite(capacity) || capacity < 0)
    throw std::invalid_argument("MaxFlow: capacity must be a finite number >= 0, got " +
                                std::to_string(capacity));
}

}  // namespace

MaxFlow::MaxFlow(int vertices) : adjacency_(size_t(std::max(0, vertices))) {}

int MaxFlow::addVertex() {
  adjacency_.emplace_back();
  return numVertices() - 1;
}

void MaxFlow::checkVertex(int v, const char *what) const {
  if (v < 0 || v >= numVertices())
    throw std::invalid_argument(std::string("MaxFlow: ") + what + " " + std::to_string(v) +
                                " is not a vertex (0.." + std::to_string(numVertices() - 1) + ")");
}

int MaxFlow::addEdge(int from, int to, double capacity) {
  checkVertex(from, "edge tail");
  checkVertex(to, "edge head");
  checkCapacity(capacity);
  const int index = numEdges();
  edges_.push_back(Arc{to, capacity, 0});
  edges_.push_back(Arc{from, 0, 0});
  adjacency_[size_t(from)].push_back(2 * index);
  adjacency_[size_t(to)].push_back(2 * index + 1);
  return index;
}

void MaxFlow::setCapacity(int edge, double capacity) {
  if (edge < 0 || edge >= numEdges())
    throw std::invalid_argument("MaxFlow: edge " + std::to_string(edge) + " does not exist");
  checkCapacity(capacity);
  edges_[size_t(2 * edge)].capacity = capacity;
}

/// Levels by BFS over arcs with residual capacity; true when the sink is reached.
bool MaxFlow::buildLevels(int source, int sink) {
  level_.assign(adjacency_.size(), -1);
  std::queue<int> queue;
  level_[size_t(source)] = 0;
  queue.push(source);
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop();
    for (int a : adjacency_[size_t(v)]) {
      const Arc &arc = edges_[size_t(a)];
      if (level_[size_t(arc.to)] < 0 && arc.residual() > epsilon_) {
        level_[size_t(arc.to)] = level_[size_t(v)] + 1;
        queue.push(arc.to);
      }
    }
  }
  return level_[size_t(sink)] >= 0;
}

/// One augmenting path of the blocking flow from `vertex`, at most `limit`; the amount pushed.
double MaxFlow::push(int vertex, int sink, double limit) {
  if (vertex == sink) return limit;
  std::vector<int> &arcs = adjacency_[size_t(vertex)];
  for (int &i = nextArc_[size_t(vertex)]; i < int(arcs.size()); ++i) {
    Arc &arc = edges_[size_t(arcs[size_t(i)])];
    if (level_[size_t(arc.to)] != level_[size_t(vertex)] + 1 || arc.residual() <= epsilon_)
      continue;
    const double pushed = push(arc.to, sink, std::min(limit, arc.residual()));
    if (pushed > 0) {
      arc.flow += pushed;
      edges_[size_t(arcs[size_t(i)] ^ 1)].flow -= pushed;
      return pushed;
    }
  }
  return 0;
}

/// The vertices the source reaches over arcs with residual capacity: the source side of a
/// minimum cut once the flow is maximal.
void MaxFlow::markReached(int source) {
  buildLevels(source, source);
  reached_.assign(adjacency_.size(), false);
  for (size_t v = 0; v < level_.size(); ++v) reached_[v] = level_[v] >= 0;
}

double MaxFlow::run(int source, int sink) {
  checkVertex(source, "source");
  checkVertex(sink, "sink");
  double largest = 0;
  for (size_t a = 0; a < edges_.size(); a += 2) {
    edges_[a].flow = edges_[a + 1].flow = 0;
    largest = std::max(largest, edges_[a].capacity);
  }
  epsilon_ = largest * kRelativeEpsilon;
  double total = 0;
  if (source != sink)
    while (buildLevels(source, sink)) {
      nextArc_.assign(adjacency_.size(), 0);
      const double inf = std::numeric_limits<double>::infinity();
      while (double pushed = push(source, sink, inf)) total += pushed;
    }
  markReached(source);
  return total;
}

double MaxFlow::cutCapacity(const std::vector<bool> &side) const {
  double total = 0;
  for (size_t a = 0; a < edges_.size(); a += 2) {
    const int tail = edges_[a + 1].to, head = edges_[a].to;
    if (side.at(size_t(tail)) && !side.at(size_t(head))) total += edges_[a].capacity;
  }
  return total;
}

}  // namespace collplan
