// FairShare: weighted max-min fair rates of activities over shared resources, updated incrementally.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace collplan {

/// An activity's use of one resource: `weight` units of the resource per byte of progress
/// (a link hop: 1; device memory: reads + writes of the op; a reduction unit: operands - 1).
struct ResourceUse {
  int resource = 0;
  double weight = 1;
};

/// Rates of activities ("flows") that consume shared resources of fixed capacity, under
/// weighted max-min fairness: Σ_f weight(f,e)·rate(f) ≤ capacity(e) for every resource e, and no
/// flow's rate can grow without lowering that of a flow with an equal or smaller rate. Each flow
/// may also have a private rate cap.
///
/// Solved by progressive filling. Rates are recomputed lazily by `update`, only over the
/// connected components (flows linked through shared resources) touched by flows added or
/// removed since the last update; the allocation of other components cannot have changed.
/// With `shared == false` every flow gets the rate it would have alone (no contention).
class FairShare {
public:
  FairShare(std::vector<double> capacities, bool shared);

  /// Starts a flow of `bytes` > 0 at time `now`; its rate is set by the next `update`.
  /// Returns the flow id (ids of removed flows are reused). `tag` is the caller's.
  int add(double now, double bytes, const std::vector<ResourceUse> &uses, double cap,
          uint64_t tag);
  /// Ends a flow (it finished): frees its id and marks its component for recomputation.
  void remove(int flow);

  /// Recomputes the rates of every component touched since the last call, at time `now`, and
  /// returns the flows whose rate changed (new flows included): their finish times moved.
  const std::vector<int> &update(double now);

  /// The rate a flow with these uses and cap gets when it is alone (no other flow shares them).
  double aloneRate(const std::vector<ResourceUse> &uses, double cap) const;

  /// Time at which `flow` finishes at its current rate.
  double finishTime(int flow) const;
  double rate(int flow) const { return flows_[flow].rate; }
  uint64_t tag(int flow) const { return flows_[flow].tag; }
  /// Bumped whenever the flow's rate changes (or its id is reused): stale finish events carry an
  /// older version.
  uint32_t version(int flow) const { return flows_[flow].version; }
  uint64_t recomputations() const { return recomputations_; }

private:
  struct Use {
    int resource;
    double weight;
    int slot;  ///< index of this flow in the resource's member list
  };
  struct Flow {
    double remaining = 0;  ///< bytes left at `since`
    double since = 0;
    double rate = 0;       ///< bytes/µs
    double cap = std::numeric_limits<double>::infinity();
    uint64_t tag = 0;
    uint32_t version = 0;
    uint32_t seen = 0;     ///< component-search stamp
    bool live = false;
    bool fresh = false;    ///< added since the last update
    bool frozen = false;
    std::vector<Use> uses;
  };
  struct Member {
    int flow;
    int use;  ///< index into the flow's uses
  };
  struct Resource {
    double capacity = 0;
    std::vector<Member> members;
    double load = 0;       ///< filled by frozen flows (during a solve)
    double weightSum = 0;  ///< weights of unfrozen flows (during a solve)
    uint32_t version = 0;  ///< invalidates stale heap entries
    uint32_t seen = 0;
    bool dirty = false;
  };
  struct Candidate {
    double level;
    int id;        ///< resource index, or ~flow for a flow's private cap
    uint32_t version;
    bool operator<(const Candidate &o) const { return level > o.level; }  // min-heap
  };

  void collectComponent(uint32_t stamp);
  void solveComponent(double now);
  double isolatedRate(const Flow &flow) const;
  void freeze(int flow, double rate);
  void pushResource(int resource, double floor);

  bool shared_;
  std::vector<Resource> resources_;
  std::vector<Flow> flows_;
  std::vector<int> freeFlows_;
  std::vector<int> dirtyResources_, freshFlows_;
  std::vector<int> componentFlows_, componentResources_, stack_;
  std::vector<Candidate> heap_;
  std::vector<int> changed_;
  std::vector<double> scratchRates_;
  uint32_t stamp_ = 0;
  uint64_t recomputations_ = 0;
};

}  // namespace collplan
