// SimModel: a plan and topology checked and flattened into the tables the event loop runs on.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Topology.h"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace collplan {

inline constexpr uint32_t kNoOp = std::numeric_limits<uint32_t>::max();

/// The path of a transfer between two ranks: the shared resources it crosses (one per hop), the
/// hops themselves (for per-link statistics), its latency, and its private rate cap (an
/// intra-device transfer is capped at the device's intra-device bandwidth; others are not).
struct SimRoute {
  std::vector<Hop> hops;
  std::vector<int> resources;
  double latencyUs = 0;
  double capBytesPerUs = std::numeric_limits<double>::infinity();
  int intraDevice = -1;  ///< the device, when both ranks share one
};

/// One endpoint of one send: where the data goes, by which route, through which FIFO.
struct SimSend {
  uint32_t receiverOp = kNoOp;  ///< slot of the matching recv
  int receiverRank = -1;
  int route = -1;
  uint32_t fifo = 0;  ///< the (sender, receiver, channel) FIFO it is queued on
};

/// What the event loop needs of one op, packed: a PlanOp is large and its buffer lists live in
/// separate allocations, so reading plans directly in the loop is dominated by cache misses.
struct SimOp {
  uint32_t units = 0;         ///< length of the op's value
  uint32_t channel = 0;       ///< the channel of its rank it belongs to
  uint32_t recvFifo = 0;      ///< the FIFO its recv consumes from (when hasRecv)
  uint32_t localTouches = 0;  ///< accesses to its own device's memory: srcs + recv + dsts
  uint32_t operands = 0;      ///< reduction operands: srcs + recv
  uint16_t dsts = 0;
  bool hasRecv = false;
  /// Its recv is a pull (Topology::intraDevicePull): this op reads the sender's buffer, capped
  /// at the intra-device bandwidth.
  bool pulledRecv = false;
  /// Its pulled recv reads the sender's unmodified input while the call fits the clean-pull
  /// footprint (Topology::intraDeviceCleanPullBytes): a local read, not held to the pull cap or
  /// the device's pull capacity.
  bool cleanPull = false;
  /// A send of one src from the `in` buffer (which no op writes), no recv, no dst.
  bool sendsInput = false;
  /// On the head of a fused chain (FusedChains.h): how many ops after it the executors fold
  /// into its pass. The head starts when every message of the chain is in and its activity
  /// carries the whole chain's resource uses.
  uint16_t chainLinks = 0;
  /// An op a fused chain's head has done: it ends as it starts, at no cost.
  bool chainLink = false;
  /// A send of one resident src, no recv, no dst: under pull it moves nothing itself.
  bool forwardsSrc() const { return operands == 1 && !hasRecv && dsts == 0; }
};

/// A rank's ops are indexed channel after channel: op i of channel c is rank-local index
/// channelBegin[r][c] + i. Ops are numbered globally ("slots"). When the ranks' programs have
/// similar lengths, local index i of rank r is slot i·ranks + r (interleaved): ops that run at
/// about the same time are neighbours in memory, so the event loop streams through its tables
/// instead of hopping between thousands of per-rank streams (cache and TLB misses dominated the
/// loop at 1024 ranks). Otherwise local index i of rank r is slot opBase[r] + i. Interleaved
/// layouts may hold empty slots (no op).
/// Resources are numbered: link l direction 0/1 at 2l/2l+1 (a half-duplex link uses 2l for both),
/// then device memories, then device reduction units, then device pull capacities. Capacities are in bytes/µs (GB/s × 1e3).
struct SimModel {
  int ranks = 0;
  double unitBytes = 0;
  bool interleaved = false;
  uint32_t slots = 0;
  std::vector<uint32_t> opCount;   ///< per rank
  std::vector<uint32_t> opBase;    ///< per rank (rank-major layout only)
  /// Per rank: where each channel starts among its local indices, plus the total at the end.
  std::vector<std::vector<uint32_t>> channelBegin;
  /// Per slot, plus the total at the end: its `after` ops, as slots in afterSlots.
  std::vector<uint32_t> afterBase;
  std::vector<uint32_t> afterSlots;
  uint32_t fifos = 0;  ///< (sender, receiver, channel) FIFOs in use
  /// Per device: how many ops of each rank / of all its ranks move data at once (0: no limit).
  std::vector<uint32_t> enginesPerRank, engines;
  std::vector<SimOp> ops;          ///< per slot
  std::vector<uint32_t> sendBase;  ///< per slot, plus the total at the end
  std::vector<SimSend> sends;
  std::vector<uint32_t> senderOp;  ///< per slot: the slot of the op that sends its recv, or kNoOp
  std::vector<SimRoute> routes;
  std::vector<int> deviceOfRank;
  std::vector<double> capacities;
  int memoryBase = 0;  ///< resource index of device 0's memory
  int reduceBase = 0;  ///< resource index of device 0's reduction unit
  int pullBase = 0;    ///< resource index of device 0's shared pull capacity (Device::pullGBps)
  bool multicast = false;
  bool pull = false;                     ///< Topology::intraDevicePull
  /// Per device: the cap of each pulled recv of its ranks (Topology::intraDeviceBandwidthGBps,
  /// or intraDevicePullMemoryGBps when the call's footprint exceeds intraDevicePullCacheBytes).
  std::vector<double> pullCapBytesPerUs;
  bool handshake = false;                ///< pull && Topology::intraDeviceHandshake
  double intraLatencyUs = 0;             ///< Topology::intraDeviceLatencyUs (the release hand-off)
  std::vector<double> opOverheadUs;      ///< per device (Device::opOverheadUs)
  /// Per device: the call's footprint fits Topology::intraDeviceCleanPullBytes.
  std::vector<uint8_t> cleanPullsLocal;

  int linkResource(const Topology &topo, const Hop &hop) const {
    return 2 * hop.link + (topo.links[hop.link].duplex && hop.reverse ? 1 : 0);
  }
  uint32_t slot(int rank, uint32_t index) const {
    return interleaved ? index * uint32_t(ranks) + uint32_t(rank) : opBase[rank] + index;
  }
  /// The rank-local index of the op in `slot`, which belongs to `rank`.
  uint32_t indexOf(uint32_t slot, int rank) const {
    return interleaved ? slot / uint32_t(ranks) : slot - opBase[rank];
  }
  /// (rank, rank-local index) of the op in a slot.
  std::pair<int, int> locate(uint32_t slot) const;
  /// The op at rank-local index `local` of `rank` as (channel, index in the channel).
  OpRef opRef(int rank, uint32_t local) const;
};

/// Checks that `plan` can be simulated on `topo` (rank counts, features, transfers matched per
/// sender, receiver and channel, `after` references, routes, finite positive bandwidths) and
/// builds its tables. Throws SimError.
SimModel buildSimModel(const Plan &plan, const Topology &topo, uint64_t messageBytes,
                       const SimOptions &options);

}  // namespace collplan
