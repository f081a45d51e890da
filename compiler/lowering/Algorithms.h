// The algorithm registry: every lowering by name, with the collectives it applies to.
#pragma once

#include "compiler/lowering/ScheduleBuilder.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

struct Topology;

/// Parameters an algorithm may read; each algorithm documents which ones it honours.
struct AlgorithmParams {
  int channels = 1;            ///< ring: rings over disjoint link sets
  bool bidirectional = false;  ///< ring: half of every block goes each way
  std::vector<int> order;      ///< ring/line order (a permutation of the ranks); empty: default
  std::vector<std::vector<int>> channelOrders;  ///< ring: one order per channel (overrides order)
  int fanout = 2;              ///< trees: children per node
  int ranksPerDevice = 1;      ///< KangaRing, Mesh, RDH intra-device stage, hierarchical: group size
  std::vector<int> dims;       ///< RDH: extents of the hypercube/torus over devices
  int pipeline = 4;            ///< pipelined tree: chunks the message is streamed in
  int ranksPerNode = 0;        ///< hierarchical: ranks per node (0: from the topology)
  std::string inter = "ring";  ///< hierarchical: inter-node algorithm
  const Topology *topology = nullptr;  ///< where topology-aware defaults come from (optional)
};

/// One compile parameter plan-tune varies for an algorithm.
struct TuningAxis {
  std::string key;  ///< a compile parameter key (compiler/export/CompileParams.h), e.g. "channels"
  /// The values to try for `spec` (`quick`: the short list of a quick tune).
  std::function<std::vector<std::string>(const CollectiveSpec &spec, bool quick)> values;
};

/// A TuningAxis with the same values for every spec; a quick tune keeps the first `quickCount`.
TuningAxis fixedAxis(std::string key, std::vector<std::string> values, size_t quickCount);

/// ranks-per-device over the divisors of N among 1, 2, 4 (device groupings worth trying without a
/// topology); a quick tune keeps 1.
TuningAxis deviceGroupingAxis();

/// One algorithm: its name, the kinds it lowers and how.
struct AlgorithmInfo {
  std::string name;     ///< e.g. "ring", "binomial-tree"
  std::string family;   ///< the lowering pass that owns it, e.g. "ring" (coll-lower-ring)
  std::string summary;  ///< one line for --help and reports
  std::vector<CollectiveKind> kinds;
  /// The schedule reduces operands that reside on other ranks (peers' memory read directly,
  /// e.g. one-shot, KangaRing's secondary), so it is emitted with `remote_reads`.
  bool remoteReads = false;
  /// Why `params` cannot lower `spec`, or nothing (kinds and common params are checked first).
  std::function<std::optional<std::string>(const CollectiveSpec &, const AlgorithmParams &)>
      check;
  /// The chunks of M the algorithm cuts the message into (kinds with a free chunk count).
  std::function<int(const CollectiveSpec &, const AlgorithmParams &)> chunks;
  /// The slices of every chunk the algorithm needs (e.g. one per ring direction); default 1.
  std::function<int(const CollectiveSpec &, const AlgorithmParams &)> slices;
  /// True when `params.order` may list devices rather than ranks (the algorithm checks it).
  bool orderOverDevices = false;
  /// Emits the schedule's body.
  std::function<void(ScheduleBuilder &, const AlgorithmParams &)> build;
  /// The compile parameters (CompileParams.h keys) the lowering reads besides `slices`, which
  /// every algorithm of a collective with data takes; plan-compile rejects the others.
  std::vector<std::string> params;
  /// The parameters plan-tune varies for this algorithm, and their values (besides `slices`,
  /// which the tuner varies for every algorithm of a collective with data).
  std::vector<TuningAxis> tuning;

  bool supports(CollectiveKind kind) const;
};

/// All registered algorithms, in a stable order.
const std::vector<AlgorithmInfo> &algorithms();
const AlgorithmInfo *findAlgorithm(llvm::StringRef name);
/// "ring, line, ..." for error messages.
std::string algorithmNames();

/// Registration hooks of each family (called once by `algorithms()`), one file each.
void registerRingAlgorithms(std::vector<AlgorithmInfo> &registry);          // RingLowering.cpp
void registerFlatAlgorithms(std::vector<AlgorithmInfo> &registry);          // FlatLowering.cpp
void registerTreeAlgorithms(std::vector<AlgorithmInfo> &registry);          // TreeLowering.cpp
void registerRdhAlgorithms(std::vector<AlgorithmInfo> &registry);           // RdhLowering.cpp
void registerPairwiseAlgorithms(std::vector<AlgorithmInfo> &registry);      // PairwiseLowering.cpp
void registerKangaRingAlgorithms(std::vector<AlgorithmInfo> &registry);     // KangaRingLowering.cpp
void registerMeshAlgorithms(std::vector<AlgorithmInfo> &registry);          // MeshLowering.cpp
void registerShotAlgorithms(std::vector<AlgorithmInfo> &registry);          // ShotLowering.cpp
void registerHierarchicalAlgorithms(std::vector<AlgorithmInfo> &registry);  // HierarchicalLowering.cpp

/// The spec `algorithm` lowers `requested` to: its chunks, slices and remote reads.
CollectiveSpec algorithmSpec(const CollectiveSpec &requested, const AlgorithmInfo &algorithm,
                             const AlgorithmParams &params);

/// Builds the schedule of `algorithm` for `requested` (kind, ranks, op, root; chunks and slices
/// are the algorithm's) at `builder`'s insertion point. On bad parameters returns failure and
/// sets `error` (e.g. "ring order [0, 2, 2] is not a permutation of 0..2").
mlir::FailureOr<mlir::coll::ScheduleOp>
buildSchedule(mlir::OpBuilder &builder, mlir::Location loc, const CollectiveSpec &requested,
              llvm::StringRef name, const AlgorithmInfo &algorithm,
              const AlgorithmParams &params, std::string &error);

/// Replaces every coll.collective whose `algorithm` is one of `family`'s algorithms (any
/// registered algorithm when `family` is empty) by its schedule. Errors are reported on the
/// collective op.
mlir::LogicalResult lowerCollectives(mlir::ModuleOp module, llvm::StringRef family,
                                     const AlgorithmParams &params);

/// Parameter helpers shared by the lowerings.
std::optional<std::string> checkPermutation(const std::vector<int> &order, int ranks,
                                            llvm::StringRef what);
/// `params.order`, or the topology's hardware ring order, or 0..N-1.
std::vector<int> ringOrderFor(const AlgorithmParams &params, int ranks);

}  // namespace collplan
