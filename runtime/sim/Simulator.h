// The `sim` backend: congestion-aware discrete-event simulation of a plan on a topology.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/sim/SimError.h"
#include "runtime/topology/Topology.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace collplan {

/// What the simulator models. The defaults model everything; switching `contention` and
/// `memory` off gives the α-β model, whose closed forms the simulated time then equals exactly.
struct SimOptions {
  /// Concurrent activities share links, device memory and reduction units max-min fairly.
  /// false: every activity runs at the rate it would get alone (nothing is shared).
  bool contention = true;
  /// Device memory bandwidth (reads + writes of every op) and reduction throughput limit ops.
  /// false: local work is free; only links (and intra-device transfers) cost time.
  bool memory = true;
};

/// The timing of one op of one rank, in µs from the start of the collective.
struct OpTiming {
  /// The op began: its channel's previous op and its `after` ops had ended, its received data
  /// was there, its sends had room, and an engine was free.
  double startUs = 0;
  double endUs = 0;    ///< the op finished: its last byte was written or delivered
  /// When the data of the op's `recv` had fully arrived; NaN for an op without a recv.
  double dataReadyUs = 0;
};

/// Traffic over one topology link (index = link index), in each direction.
struct LinkUsage {
  double bytesForward = 0;  ///< bytes crossed from `a` to `b`
  double bytesReverse = 0;  ///< bytes crossed from `b` to `a`
  /// Busiest direction's bytes / (bandwidth × total time); both directions together on a
  /// half-duplex link. In [0, 1].
  double utilisation = 0;
};

/// Memory traffic of one device (index = device index). Zero when `SimOptions::memory` is off.
struct DeviceUsage {
  double memoryBytes = 0;       ///< reads + writes charged to its memory
  double reduceBytes = 0;       ///< bytes combined by its reduction units (n-ary: (n-1)·L)
  double intraDeviceBytes = 0;  ///< bytes of transfers between two of its ranks
  double memoryUtilisation = 0; ///< memoryBytes / (memory bandwidth × total time)
};

/// What released an op on the critical path.
enum class CriticalCause : uint8_t {
  Start,         ///< the first op of its channel, and nothing else held it back
  ProgramOrder,  ///< the previous op of the same channel finished
  Transfer,      ///< the data of its recv arrived (the previous step is the sending op)
  After,         ///< an op of another channel it waits for (`after`) finished
};

/// One op on the critical path, in time order.
struct CriticalStep {
  int rank = 0;
  int channel = 0;
  int op = 0;  ///< index in the channel
  double startUs = 0;
  double endUs = 0;
  CriticalCause cause = CriticalCause::Start;
};

struct SimResult {
  double totalUs = 0;  ///< when the last op of any rank finished
  /// timelines[rank][i]: every op of every rank, its channels one after the other (channel 0's
  /// ops, then channel 1's, ...; what plan-view draws). timing() finds one op.
  std::vector<std::vector<OpTiming>> timelines;
  std::vector<LinkUsage> links;      ///< one per topology link
  std::vector<DeviceUsage> devices;  ///< one per topology device
  /// The chain of ops, linked by program order or transfers, that ends at `totalUs`.
  std::vector<CriticalStep> criticalPath;
  uint64_t transfers = 0;   ///< sends simulated (one per endpoint)
  double bytesMoved = 0;    ///< total bytes of all transfers (each counted once, not per hop)
  uint64_t rateUpdates = 0; ///< max-min recomputations (a cost figure for the simulator itself)

  /// The timing of op `ref` of rank `rank` of `plan` (the plan simulated).
  const OpTiming &timing(const Plan &plan, int rank, OpRef ref) const;
};

/// Simulates `plan` on `topo` for a message of `messageBytes` bytes (M, see Plan::units: a unit
/// is messageBytes / units bytes, fractional allowed). Throws SimError on any input it cannot
/// simulate; never returns a partial result. A composed plan the compiler kept for rank 0 alone
/// (Plan::onlyRank, Plan::composition) is simulated as every rank's program built from its
/// stages (composeHierarchical); its result's timelines refer to that plan.
SimResult simulate(const Plan &plan, const Topology &topo, uint64_t messageBytes,
                   const SimOptions &options = {});

/// The executor-style entry for the tuner: the simulated time in µs of `plan` on `topo`.
double simulateTimeUs(const Plan &plan, const Topology &topo, uint64_t messageBytes,
                      const SimOptions &options = {});

/// True when `plan` declares that it reads peers' memory directly (`params.remote_reads`),
/// which needs Features::remoteReads.
bool planNeedsRemoteReads(const Plan &plan);
/// True when an op of `plan` writes one value to several places (a `dup`, several sends or
/// several dsts), which needs Features::duplication.
bool planNeedsDuplication(const Plan &plan);

/// The result as JSON (total_us, timelines with channels, op kinds and steps, links, devices,
/// critical_path), for plan-view and reports. Token-free, self-describing field names.
nlohmann::json simResultToJson(const SimResult &result, const Plan &plan);

}  // namespace collplan
