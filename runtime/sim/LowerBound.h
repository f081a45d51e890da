// LowerBound: the time below which no plan of a collective runs on a topology in the simulator's
// model — a throughput bound from cuts of the link graph (max-flow), memory and reduction
// throughput, and a latency bound from path latencies.
#pragma once

#include "runtime/core/Collective.h"
#include "runtime/topology/Topology.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace collplan {

/// A request the bound cannot be computed for (a root outside the ranks, a topology that is not
/// finalized, a link or device figure the simulator would refuse too). `what()` reads
/// "bound: <field>: <reason>".
class BoundError : public std::runtime_error {
public:
  BoundError(const std::string &field, const std::string &reason)
      : std::runtime_error("bound: " + field + ": " + reason) {}
};

struct BoundOptions {
  /// As SimOptions::memory: count device memory and reduction throughput (off: links only,
  /// for simulations run with memory off).
  bool memory = true;
  int root = 0;  ///< the root of broadcast, reduce, gather and scatter
};

/// One device's memory term: at least `touchesPerByte` × M bytes of reads and writes on its
/// memory for a message of M bytes, at the fastest bandwidth any plan's footprint can give it.
struct MemoryTerm {
  int device = -1;
  int ranks = 0;
  double touchesPerByte = 0;
  double memGBps = 0, cacheBytes = 0, cacheGBps = 0, nearCacheBytes = 0, nearCacheGBps = 0;
  /// The fastest bandwidth the simulator can give the device's memory at M: its memory, or a
  /// cache that the smallest footprint of any plan (input and output of its ranks, no scratch)
  /// fits in. A plan with scratch has a larger footprint, so never a faster tier.
  double bandwidthGBps(uint64_t bytes) const;
  double timeUs(uint64_t bytes) const;
};

/// A lower bound on a collective's time on a topology, for every message size M (bytes, as the
/// simulator and the bundles count them: the whole output of allgather and gather, the whole
/// input of reduce-scatter, scatter and all-to-all, the vector of allreduce, broadcast and
/// reduce). No plan simulated with the same memory setting takes less than `timeUs(M)`.
struct CollectiveBound {
  CollectiveKind kind = CollectiveKind::AllReduce;
  int ranks = 0;
  int root = 0;
  /// Links: time >= linkUsPerByte × M; `linkCut` says which cut or argument gives it.
  double linkUsPerByte = 0;
  std::string linkCut;
  /// Reduction units (Device::reduceGBps, all positive): time >= reduceUsPerByte × M.
  double reduceUsPerByte = 0;
  /// Memory, per device with ranks (empty with BoundOptions::memory off).
  std::vector<MemoryTerm> memory;
  /// Latency: the latest any rank can have everything it needs, whatever the size.
  double latencyUs = 0;
  std::string latencyPath;
  /// True when the topology was too large to try every sink and pair exactly: a subset was
  /// tried (still a lower bound, possibly a looser one).
  bool sampled = false;

  double linkUs(uint64_t bytes) const { return linkUsPerByte * double(bytes); }
  double reduceUs(uint64_t bytes) const { return reduceUsPerByte * double(bytes); }
  /// The slowest device's memory time at M; `device` receives which one (-1 when none).
  double memoryUs(uint64_t bytes, int *device = nullptr) const;
  /// max(links, memory, reduction): the throughput bound at M.
  double bandwidthUs(uint64_t bytes) const;
  /// max(latency, bandwidthUs(M)): the bound.
  double timeUs(uint64_t bytes) const;
  /// What gives timeUs(M): "latency", "links", "memory" or "reduction".
  std::string_view limit(uint64_t bytes) const;
};

/// The bound of `kind` on all of `topo`'s ranks. See runtime/sim/README.md ("Lower bound") for
/// the formulas and why the simulator cannot beat them. Throws BoundError.
CollectiveBound collectiveBound(const Topology &topo, CollectiveKind kind,
                                const BoundOptions &options = {});

/// A table for people: the terms and what gives them, then one row per size (bound, latency,
/// links, memory, reduction, algorithm bandwidth M / bound, the limiting term).
std::string formatBound(const CollectiveBound &bound, const Topology &topo,
                        const std::vector<uint64_t> &sizes);

}  // namespace collplan
