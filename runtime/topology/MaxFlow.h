// MaxFlow: Dinic's maximum flow on a directed graph with real capacities, and its minimum cut.
#pragma once

#include <cstddef>
#include <vector>

namespace collplan {

/// A directed graph with double capacities on which maximum s-t flows are computed (Dinic's
/// algorithm: BFS levels, blocking flows by DFS). General on purpose: the topology bound
/// (runtime/sim/LowerBound.h) runs one flow per sink over a link graph with an added source, and
/// a spanning-tree packer can run it over any graph it builds. Capacities may be changed between
/// runs (`setCapacity`) so a parametric search reuses one graph; every `run` starts from zero
/// flow. Residual capacities below `epsilon` × the largest capacity count as saturated, so
/// rounding in the sums never leaves an augmenting path of dust.
class MaxFlow {
public:
  explicit MaxFlow(int vertices = 0);

  int numVertices() const { return int(adjacency_.size()); }
  int numEdges() const { return int(edges_.size() / 2); }
  /// Adds a vertex and returns its index.
  int addVertex();
  /// Adds the edge from → to with `capacity` (>= 0, finite) and returns its index (0, 1, ...).
  /// Throws std::invalid_argument naming the bad vertex or capacity.
  int addEdge(int from, int to, double capacity);
  /// Changes edge `edge`'s capacity for the next run (>= 0, finite).
  void setCapacity(int edge, double capacity);
  double capacity(int edge) const { return edges_[size_t(2 * edge)].capacity; }
  int from(int edge) const { return edges_[size_t(2 * edge + 1)].to; }
  int to(int edge) const { return edges_[size_t(2 * edge)].to; }

  /// The maximum flow from `source` to `sink` (0 when they are equal). Throws
  /// std::invalid_argument for a vertex out of range.
  double run(int source, int sink);
  /// After `run`: the flow on `edge`.
  double flow(int edge) const { return edges_[size_t(2 * edge)].flow; }
  /// After `run`: true for the vertices on the source side of a minimum cut (those the source
  /// still reaches through unsaturated edges). The edges from that side to the rest are
  /// saturated and their capacities sum to the flow.
  const std::vector<bool> &sourceSide() const { return reached_; }
  /// Sum of the capacities of the edges from a vertex with side[v] true to one with side[v]
  /// false: the capacity of that cut (any cut, not only the minimum one).
  double cutCapacity(const std::vector<bool> &side) const;

private:
  /// An edge and its reverse are stored side by side: edge e at 2e, its residual twin at 2e+1.
  struct Arc {
    int to = 0;
    double capacity = 0;
    double flow = 0;
    double residual() const { return capacity - flow; }
  };
  bool buildLevels(int source, int sink);
  double push(int vertex, int sink, double limit);
  void markReached(int source);
  void checkVertex(int v, const char *what) const;

  std::vector<Arc> edges_;
  std::vector<std::vector<int>> adjacency_;  ///< per vertex: arc indices leaving it
  std::vector<int> level_, nextArc_;
  std::vector<bool> reached_;
  double epsilon_ = 0;
};

}  // namespace collplan
