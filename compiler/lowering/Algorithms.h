// The algorithm registry, the one source of truth about every algorithm: its name, collectives,
// typed parameters, tuning axes, topology needs and origin, and how it lowers.
#pragma once

#include "compiler/lowering/AlgorithmParams.h"
#include "compiler/lowering/ScheduleBuilder.h"
#include "runtime/plan/Plan.h"

#include "mlir/IR/BuiltinOps.h"

#include <deque>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace collplan {

struct Topology;

/// One parameter plan-tune varies for an algorithm.
struct TuningAxis {
  std::string key;  ///< a parameter the algorithm declares (checked at registration)
  /// The values to try for `spec` (`quick`: the short list of a quick tune); the first is the
  /// spec's default, which a variant's label leaves out.
  std::function<std::vector<std::string>(const CollectiveSpec &spec, bool quick)> values;
};

/// A TuningAxis with the same values for every spec; a quick tune keeps the first `quickCount`.
TuningAxis fixedAxis(std::string key, std::vector<std::string> values, size_t quickCount);

/// ranks-per-device over the `candidates` that divide N (device groupings worth trying without a
/// topology); a quick tune keeps the first.
TuningAxis deviceGroupingAxis(std::vector<int> candidates = {1, 2, 4});

/// A collective built from stage plans compiled and proven at their own sizes
/// (runtime/plan/Composition.h): over nodes of consecutive ranks, the algorithm of each stage
/// composedStages(kind) names, in that order.
struct ComposedForm {
  int ranksPerNode = 1;
  std::vector<std::string> stageAlgorithms;
};

/// Rank 0's level-3 program of a plan whose ranks all run it under `symmetry`
/// (runtime/plan/Symmetry.h), stated by the algorithm for N ranks: the plan the pipeline compiles
/// from every rank's schedule, op for op (tests/compiler/SymmetricCompileTest.cpp compares
/// them), built in time proportional to one rank's program instead of N².
struct SymmetricProgram {
  PlanSymmetry symmetry;
  RankProgram base;
  uint32_t units = 1;
  uint32_t scratchUnits = 0;
  bool inplaceSafe = false;
  /// The cost model's figures for the whole level-2 schedule (ScheduleCost: `transfers` counts
  /// block moves, before level 3 joins a round's blocks to one peer into one message).
  int64_t alphaRounds = 0;
  double beta = 0;
  int64_t transfers = 0;
  double bytesMoved = 0;

  /// One more port-model round whose largest message is `fraction` of M: the cost model's
  /// alpha rounds and its beta, summed round by round as it sums them.
  void addRound(double fraction) {
    ++alphaRounds;
    beta += fraction;
  }
};

/// `length` units of `buffer` from unit `offset`: a reference of a stated program.
inline BufRef unitRange(BufferKind buffer, int offset, int length = 1) {
  return BufRef{buffer, uint32_t(offset), uint32_t(length)};
}

/// Where a registered algorithm comes from: a C++ lowering, or a schedule template's file path.
inline constexpr const char *kBuiltinOrigin = "built-in";

/// One algorithm: everything about it lives here, and every tool reads it from here.
struct AlgorithmInfo {
  std::string name;     ///< e.g. "ring", "binomial-tree"
  std::string summary;  ///< one line for --list and reports
  std::vector<CollectiveKind> kinds;
  /// Its parameters: pass options, plan-compile's flags and --list, the plan's `params` record
  /// and the tuner's labels are derived from these. `slices` is not one of them: every
  /// algorithm of a collective with data takes it (slicesParamSpec).
  std::vector<ParamSpec> params;
  /// The parameters plan-tune varies, and their values (each names a declared parameter).
  std::vector<TuningAxis> tuning;
  /// KEY=VALUE texts under which the algorithm lowers without a topology where its defaults do
  /// not (hierarchical takes its nodes from the topology by default): what the sweeps, the
  /// benchmarks and --list use. Empty: the defaults apply.
  std::vector<std::string> example;
  /// Topology needs: the schedule reduces operands that reside on other ranks (peers' memory
  /// read directly, e.g. one-shot, KangaRing's secondary), so it is emitted with `remote_reads`.
  bool remoteReads = false;
  /// When set, decides remote reads from the parameters instead (a composition inherits its
  /// stages' needs).
  std::function<bool(const AlgorithmParams &)> remoteReadsWith;
  /// Level 3 posts every send that needs nothing received before any receive (a direct
  /// exchange: no send waits for a receive), not one send per port-model round.
  bool sendsFirst = false;
  /// Its own parameters pipeline the message (synth: each tree a pipeline of slices), so
  /// plan-tune does not also vary `slices` for it: the product would only multiply ops.
  bool pipelinesItself = false;
  /// NCCL's algorithm of the same schedule for every collective this one implements, as its
  /// tuner plugin names it ("ring", "tree"); empty where NCCL has none. plan-tune --emit
  /// nccl-tuner maps its winners through it.
  std::string ncclAlgorithm;
  /// kBuiltinOrigin, or the file a template was read from.
  std::string origin = kBuiltinOrigin;
  /// Why `params` cannot lower `spec`, or nothing (kinds and the topology's size are checked
  /// first).
  std::function<std::optional<std::string>(const CollectiveSpec &, const AlgorithmParams &)>
      check;
  /// The chunks of M the algorithm cuts the message into (kinds with a free chunk count).
  std::function<int(const CollectiveSpec &, const AlgorithmParams &)> chunks;
  /// The slices of every chunk the algorithm needs (e.g. one per ring direction); default 1.
  std::function<int(const CollectiveSpec &, const AlgorithmParams &)> slices;
  /// Set for an algorithm that can be built from stages of their own sizes (for the kinds
  /// composedStages names): the stages for these parameters, or nothing with the reason in
  /// `error`. A spec past the positions the verifiers index (CollectiveSpec::exceedsPositions),
  /// or of a kind in `composedKinds`, compiles this way.
  std::function<std::optional<ComposedForm>(const CollectiveSpec &, const AlgorithmParams &,
                                            std::string &error)>
      composed;
  /// Set where the algorithm states rank 0's program under a symmetry for some parameters: that
  /// program for `spec` (which passed `check`), or nothing where these parameters have no such
  /// rule (the pipeline then compiles every rank's schedule).
  std::function<std::optional<SymmetricProgram>(const CollectiveSpec &, const AlgorithmParams &)>
      symmetricProgram;
  /// Kinds the algorithm implements only as stages (no level-2 schedule of its own).
  std::vector<CollectiveKind> composedKinds;
  /// Emits the schedule's body.
  std::function<void(ScheduleBuilder &, const AlgorithmParams &)> build;
  /// The messages the busiest rank sends per call in the algorithm's textbook form, one per
  /// peer per step whatever blocks it carries, at one slice (each further slice is a message
  /// of its own): the latency term, and what compiled plans are checked against
  /// (tests/compiler/MessageCountTest.cpp). Nothing where no formula is stated for these
  /// parameters (and for schedule templates).
  std::function<std::optional<int>(const CollectiveSpec &, const AlgorithmParams &)> messages;

  bool supports(CollectiveKind kind) const;
  /// True when it implements a collective with data, so it takes `slices`.
  bool hasData() const;
  /// The spec of parameter `key`, or null.
  const ParamSpec *findParam(std::string_view key) const;
  /// "allgather, reduce_scatter, allreduce".
  std::string kindNames() const;
};

/// Thrown by an algorithm's `build` that cannot emit its schedule for these parameters after
/// its `check` passed (a template whose instantiation fails): buildSchedule reports the message
/// as its error and drops the partial schedule.
class AlgorithmBuildError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// What built-in lowering files register their algorithms with: each `<Name>Lowering.cpp` in
/// compiler/lowering/ defines `void register<Name>Algorithms(AlgorithmRegistry &)`, which the
/// registry calls (compiler/CMakeLists.txt lists the files), so a new file needs no other edit.
class AlgorithmRegistry {
public:
  /// Adds `algorithm`; throws std::logic_error naming it and the reason when the entry is
  /// inconsistent (checkAlgorithmEntry).
  void add(AlgorithmInfo algorithm);
  const std::deque<AlgorithmInfo> &entries() const { return entries_; }
  std::deque<AlgorithmInfo> &entries() { return entries_; }

private:
  std::deque<AlgorithmInfo> entries_;
};

/// Why `algorithm` cannot join `registry`, or nothing: an empty or taken name, no collective
/// or builder, a parameter declared twice, called `slices`, with a default its own spec refuses
/// or another type than the same key of another algorithm, a tuning axis or example naming no
/// declared parameter.
std::optional<std::string> checkAlgorithmEntry(const AlgorithmInfo &algorithm,
                                               const std::deque<AlgorithmInfo> &registry,
                                               NameCheck names = NameCheck::Registry);

/// All registered algorithms: the built-ins (in the order of their files), then any registered
/// at run time. Addresses are stable.
const std::deque<AlgorithmInfo> &algorithms();
const AlgorithmInfo *findAlgorithm(llvm::StringRef name);
/// "ring, line, ..." for error messages.
std::string algorithmNames();
/// One spec per parameter key of the registered algorithms (the first to declare it; a key has
/// one type everywhere), ordered by key. `slices` is not among them (slicesParamSpec).
std::vector<const ParamSpec *> registeredParams();
/// Registers an algorithm at run time (e.g. a schedule template, whose origin is its file).
/// Returns why it is refused (checkAlgorithmEntry), or nothing.
std::optional<std::string> registerAlgorithm(AlgorithmInfo algorithm);

/// The spec `algorithm` lowers `requested` to: its chunks, slices and remote reads.
CollectiveSpec algorithmSpec(const CollectiveSpec &requested, const AlgorithmInfo &algorithm,
                             const AlgorithmParams &params);

/// True when `requested` is compiled from stages of their own sizes (AlgorithmInfo::composed):
/// a kind the algorithm composes, past the positions the verifiers index or of its
/// `composedKinds`.
bool compiledAsStages(const CollectiveSpec &requested, const AlgorithmInfo &algorithm,
                     const AlgorithmParams &params);

/// Why `algorithm` with `params` cannot lower `requested`, or nothing: the checks every
/// algorithm gets (kinds, the topology's size, the spec) and its own `check`.
std::optional<std::string> checkAlgorithm(const CollectiveSpec &requested,
                                          const AlgorithmInfo &algorithm,
                                          const AlgorithmParams &params);

/// Builds the schedule of `algorithm` for `requested` (kind, ranks, op, root; chunks and slices
/// are the algorithm's) at `builder`'s insertion point. `params` are the algorithm's (a
/// default-constructed AlgorithmParams means its defaults). On bad parameters returns failure
/// and sets `error` (e.g. "ring order [0, 2, 2] is not a permutation of 0..2"); a lowering that
/// reads an undeclared parameter fails the same way, naming it.
mlir::FailureOr<mlir::coll::ScheduleOp>
buildSchedule(mlir::OpBuilder &builder, mlir::Location loc, const CollectiveSpec &requested,
              llvm::StringRef name, const AlgorithmInfo &algorithm,
              const AlgorithmParams &params, std::string &error);

/// What coll-lower is asked to do.
struct LoweringRequest {
  /// The algorithm of collectives that name none (empty: such a collective is an error).
  /// Collectives that name an algorithm keep theirs.
  std::string algorithm;
  /// KEY=VALUE texts, each applied to every collective whose algorithm declares KEY; a key no
  /// lowered collective's algorithm declares is an error.
  std::vector<std::string> params;
  const Topology *topology = nullptr;
};

/// Replaces every coll.collective by the schedule of its algorithm. Errors are reported on the
/// collective op (unknown algorithm, a parameter value its spec refuses, parameters the
/// algorithm rejects) or on the module (a malformed or unknown key, a key nothing takes).
mlir::LogicalResult lowerCollectives(mlir::ModuleOp module, const LoweringRequest &request);

/// Emits one stage of a composed schedule into `parent`'s: `algorithm`, with its default
/// parameters, lowering `spec` (from stageSpec) over the `mapping.members` ranks, its inputs and
/// outputs mapped. The algorithm must have been checked for the stage (checkStage).
void buildStage(ScheduleBuilder &parent, const AlgorithmInfo &algorithm,
                const CollectiveSpec &spec, StageMapping mapping);
/// The spec of a stage: `kind` over `ranks` ranks with `parent`'s op, as `algorithm` (with its
/// defaults) cuts it.
CollectiveSpec stageSpec(const CollectiveSpec &parent, CollectiveKind kind, int ranks,
                         const AlgorithmInfo &algorithm);
/// Why the algorithm named `name` cannot be the `role` stage (e.g. "inter-node") doing `kind`
/// over `ranks` ranks with its default parameters, or nothing.
std::optional<std::string> checkStage(const std::string &role, const std::string &name,
                                      CollectiveKind kind, int ranks,
                                      const CollectiveSpec &parent);

/// Rounds of recursive doubling or halving over `ranks` with MPICH's fold: floor(log2 N), and
/// one more where N is not a power of two (the partner of a folded rank also sends it its
/// result).
int foldedRounds(int ranks);

/// One message to every other rank per phase, over `phases` phases (direct and ring families:
/// N - 1 each); an AlgorithmInfo::messages for algorithms whose count takes no parameter.
template <int phases>
std::optional<int> messagesToEveryPeer(const CollectiveSpec &spec, const AlgorithmParams &) {
  return phases * (spec.ranks - 1);
}

/// Parameter helpers shared by the lowerings.
std::optional<std::string> checkPermutation(const std::vector<int> &order, int ranks,
                                            llvm::StringRef what);
/// The `order` parameter, or the topology's hardware ring order, or 0..N-1.
std::vector<int> ringOrderFor(const AlgorithmParams &params, int ranks);
/// Why the `order` parameter is not a permutation of the ranks, or nothing.
std::optional<std::string> checkRankOrder(const CollectiveSpec &spec,
                                          const AlgorithmParams &params);
/// Why the `ranks-per-device` parameter does not divide the ranks, or nothing.
std::optional<std::string> checkDeviceGrouping(const CollectiveSpec &spec,
                                               const AlgorithmParams &params);

}  // namespace collplan
