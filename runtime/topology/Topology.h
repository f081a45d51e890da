// The topology model: ranks on devices, devices and switches joined by links, routing, features.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

inline constexpr int kTopologyFormatVersion = 1;

/// A chip, GPU or socket: it holds ranks that share its memory bandwidth.
struct Device {
  std::string name;
  std::string kind = "chip";    ///< chip | gpu | socket | cpu (informational)
  std::vector<int> ranks;       ///< ranks placed on this device
  int node = 0;                 ///< the node (machine) it belongs to
  double memBandwidthGBps = 0;  ///< shared by all reads and writes of its ranks
  double reduceGBps = 0;        ///< reduction throughput (0 = limited by memory only)
  /// A cache in front of the memory (0 = none): when a simulated call's footprint on the device
  /// (2 × message bytes × its ranks: every rank's input and output) fits in `cacheBytes`, its
  /// memory traffic runs at `cacheBandwidthGBps` instead (`calibrate` fits both).
  double cacheBytes = 0;
  double cacheBandwidthGBps = 0;
  /// A smaller, faster cache level inside `cacheBytes` (e.g. L2 under the LLC; 0 = none): a
  /// call whose footprint fits `nearCacheBytes` runs its memory traffic at
  /// `nearCacheBandwidthGBps`. Must not exceed `cacheBytes` when both are given.
  double nearCacheBytes = 0;
  double nearCacheBandwidthGBps = 0;
  /// Software time each op of a rank on this device costs before it moves data (executor
  /// dispatch, flag protocol): the rank is busy for it. 0 in the α-β model.
  double opOverheadUs = 0;
  /// All pulls (Topology::intraDevicePull) by this device's ranks together read at most this
  /// fast (0 = no shared limit; each pull keeps its own intra-device cap). Set when the ranks
  /// outnumber the cores: a pull is a core copying another core's lines, so oversubscribed
  /// ranks share the cores' pull rate, while fewer concurrent pulls each get a whole core.
  double pullGBps = 0;
  /// `pullGBps` for calls whose footprint exceeds Topology::intraDevicePullCacheBytes (0 = no
  /// shared limit there): beyond the caches every pull waits on memory, and so does their sum.
  double pullMemoryGBps = 0;
  /// Ops of one rank that move data at once: its channels run on that many engines (DMA
  /// queues, thread blocks; 1 for a CPU rank's one progress thread). 0 = one per channel.
  int enginesPerRank = 0;
  /// Ops of all its ranks together that move data at once (0 = no device-wide limit).
  int engines = 0;
  std::vector<int> coords;      ///< position along `Topology::dims` (torus, hypercube)
};

/// A switch (NVSwitch, PCIe switch, leaf/spine): a vertex that forwards and holds no ranks.
struct Switch {
  std::string name;
  std::string kind = "switch";  ///< switch | nvswitch | pcie | nic | leaf | spine (informational)
};

/// A vertex of the link graph: devices are 0..D-1, switches D..D+S-1.
using VertexId = int;

/// A link between two vertices. Duplex links carry `bandwidthGBps` in each direction at once;
/// half-duplex links share it between both directions.
struct Link {
  VertexId a = 0;
  VertexId b = 0;
  double bandwidthGBps = 0;
  double latencyUs = 0;
  bool duplex = true;
  int dim = -1;  ///< torus/hypercube dimension this link runs along, or -1
};

/// One hop of a route: link index and whether it is crossed from `b` to `a`.
struct Hop {
  int link = 0;
  bool reverse = false;
  bool operator==(const Hop &o) const { return link == o.link && reverse == o.reverse; }
};

enum class Routing : uint8_t { ShortestPath, DimensionOrder };

struct Features {
  bool duplication = false;  ///< one read may feed several writes (dup) at wire level
  bool remoteReads = false;  ///< a rank may read peers' memory directly (same node)
  bool multicast = false;    ///< switches can replicate a message
};

struct Topology {
  std::string name;
  std::vector<Device> devices;
  std::vector<Switch> switches;
  std::vector<Link> links;
  std::vector<int> dims;  ///< torus / hypercube extents over devices, empty otherwise
  bool wrap = true;       ///< torus dimensions wrap around (false: mesh)
  Routing routing = Routing::ShortestPath;
  Features features;
  /// Bandwidth and latency of a transfer between two ranks of one device (through its memory).
  double intraDeviceBandwidthGBps = 0;
  double intraDeviceLatencyUs = 0;
  /// Transfers between ranks of one device are pulls (shared-memory executors such as
  /// cpu-threads: the receiver reads the sender's buffer): the bytes cross the memory once, as
  /// the receiving op's read, which is capped at `intraDeviceBandwidthGBps`. The sender writes
  /// the value only when it must materialise it (a computed value with no dst); a send of a
  /// resident buffer moves nothing. false: pushes (the sender's op writes the receiver's memory).
  bool intraDevicePull = false;
  /// With pulls: when a call's footprint on a device (as for its caches) is at most this, a pull
  /// of a sender's unmodified input (a send of an `in` buffer, which no op writes) reads clean
  /// lines the reader's core still caches from earlier calls, as fast as a local read: it is
  /// charged to memory like any read and not held to the pull cap or Device::pullGBps, which
  /// price migrating lines another core has just written. 0: every pull is capped.
  double intraDeviceCleanPullBytes = 0;
  /// With pulls: a second pull tier, like the device caches' (0 = none). When a call's footprint
  /// on a device exceeds this, the lines a pull reads no longer stay in the caches between the
  /// writer and the reader; each pull is then capped at `intraDevicePullMemoryGBps` instead of
  /// `intraDeviceBandwidthGBps`, and all of them together at Device::pullMemoryGBps instead of
  /// Device::pullGBps. `calibrate` fits it from the ring shift's farthest tier.
  double intraDevicePullCacheBytes = 0;
  double intraDevicePullMemoryGBps = 0;
  /// With pulls: transfers between ranks of one device follow a flag handshake (the cpu
  /// backends' publish / acquire / release): the sender publishes and goes on (its op does not
  /// wait for the latency), and its call is over only once every receiver has released the
  /// data, which costs a second hand-off (receiving op's end + latency). false: the sender's op
  /// ends when its data has arrived, and nothing comes back (the α-β model).
  bool intraDeviceHandshake = false;

  int numRanks() const;
  /// The nodes (machines) its devices belong to: the distinct Device::node values.
  int numNodes() const;
  int numVertices() const { return int(devices.size() + switches.size()); }
  /// The device that holds `rank`.
  int deviceOf(int rank) const;
  const std::vector<int> &ranksOf(int device) const { return devices.at(device).ranks; }
  int nodeOf(int rank) const { return devices.at(deviceOf(rank)).node; }

  /// The hops a message from rank `from` to rank `to` crosses (empty on one device), following
  /// `routing`. Throws std::runtime_error when no route exists.
  std::vector<Hop> route(int from, int to) const;

  /// Devices adjacent to `device` along torus/hypercube dimension `dim` (-1 / +1 direction).
  std::vector<int> neighbours(int device, int dim) const;

  /// A stable hex fingerprint of everything that affects plans (not the name).
  std::string fingerprint() const;

  /// Rank indexing cache, rebuilt by `finalize()`; loaders and generators call it.
  void finalize();
  std::vector<int> rankToDevice;
};

/// Loads and validates a topology JSON file; errors name the file, field and reason.
Topology loadTopologyFile(const std::string &path);
/// Parses and validates a topology from JSON; `origin` names the source in errors.
Topology topologyFromJson(const nlohmann::json &json, const std::string &origin);
nlohmann::json topologyToJson(const Topology &topo);

}  // namespace collplan
