// The algorithm registry: built-in registration, entry checks, schedule construction and the
// shared lowering driver.
#include "compiler/lowering/Algorithms.h"
#include "runtime/core/Text.h"
#include "runtime/plan/Composition.h"

#include "runtime/topology/Queries.h"
#include "runtime/topology/Topology.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace collplan {

// One `register<Name>Algorithms` hook per compiler/lowering/<Name>Lowering.cpp, listed by
// compiler/CMakeLists.txt.
#define COLLPLAN_LOWERING_FILE(Name) void register##Name##Algorithms(AlgorithmRegistry &);
#include "compiler/lowering/BuiltinLowerings.inc"
#undef COLLPLAN_LOWERING_FILE

namespace {

/// Algorithm-name defaults and examples (a composition's stages) can only be checked once every
/// built-in is in; throws std::logic_error naming the first that names none.
void checkStageNames(const std::deque<AlgorithmInfo> &entries) {
  auto known = [&](const std::string &name) {
    return std::any_of(entries.begin(), entries.end(),
                       [&](const AlgorithmInfo &a) { return a.name == name; });
  };
  for (const AlgorithmInfo &a : entries) {
    std::vector<std::pair<std::string, std::string>> names;
    for (const ParamSpec &spec : a.params)
      if (spec.type == ParamType::AlgorithmName) names.emplace_back(spec.name, spec.defaultValue);
    for (const std::string &assignment : a.example) {
      std::string key, value;
      const ParamSpec *spec = splitAssignment(assignment, key, value) ? nullptr : a.findParam(key);
      if (spec && spec->type == ParamType::AlgorithmName) names.emplace_back(key, value);
    }
    for (const auto &[key, name] : names)
      if (!known(name))
        throw std::logic_error("algorithm '" + a.name + "': parameter '" + key + "' names '" +
                               name + "', which is not registered");
  }
}

/// The registry: built-ins registered on first use, in file order.
std::deque<AlgorithmInfo> &registry() {
  static std::deque<AlgorithmInfo> entries = [] {
    AlgorithmRegistry r;
#define COLLPLAN_LOWERING_FILE(Name) register##Name##Algorithms(r);
#include "compiler/lowering/BuiltinLowerings.inc"
#undef COLLPLAN_LOWERING_FILE
    checkStageNames(r.entries());
    return std::move(r.entries());
  }();
  return entries;
}

/// Why a parameter spec of `algorithm` is inconsistent, or nothing.
std::optional<std::string> checkParamSpec(const ParamSpec &spec, const AlgorithmInfo &algorithm,
                                          const std::deque<AlgorithmInfo> &registry,
                                          NameCheck names) {
  const std::string where = "parameter '" + spec.name + "'";
  if (spec.name.empty() || spec.name.find_first_of("= \t") != std::string::npos)
    return where + " needs a name without spaces or '='";
  if (spec.name == slicesParamSpec().name)
    return where + " is every algorithm's (coll-slice's): do not declare it";
  if (spec.min > spec.max) return where + ": minimum above maximum";
  int declared = 0;
  for (const ParamSpec &other : algorithm.params) declared += other.name == spec.name;
  if (declared > 1) return where + " is declared twice";
  ParamValue value;
  if (auto bad = parseParamValue(spec, spec.defaultValue, value, names))
    return where + ": its default: " + *bad;
  for (const AlgorithmInfo &other : registry)
    if (const ParamSpec *same = other.findParam(spec.name); same && same->type != spec.type)
      return where + " is " + std::string(toString(spec.type)) + ", but algorithm '" +
             other.name + "' declares it " + std::string(toString(same->type)) +
             ": a key has one type";
  return std::nullopt;
}

}  // namespace

bool AlgorithmInfo::supports(CollectiveKind kind) const {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

bool AlgorithmInfo::hasData() const {
  return std::any_of(kinds.begin(), kinds.end(),
                     [](CollectiveKind k) { return k != CollectiveKind::Barrier; });
}

const ParamSpec *AlgorithmInfo::findParam(std::string_view key) const {
  for (const ParamSpec &spec : params)
    if (spec.name == key) return &spec;
  return nullptr;
}

std::string AlgorithmInfo::kindNames() const {
  std::vector<std::string> names;
  for (CollectiveKind k : kinds) names.emplace_back(toString(k));
  return joined(names);
}

TuningAxis deviceGroupingAxis(std::vector<int> candidates) {
  return TuningAxis{"ranks-per-device", [candidates](const CollectiveSpec &spec, bool quick) {
                      std::vector<std::string> out;
                      for (int k : candidates)
                        if (spec.ranks % k == 0 && k <= spec.ranks && (!quick || out.empty()))
                          out.push_back(std::to_string(k));
                      return out;
                    }};
}

TuningAxis fixedAxis(std::string key, std::vector<std::string> values, size_t quickCount) {
  return TuningAxis{std::move(key), [values, quickCount](const CollectiveSpec &, bool quick) {
                      return quick ? std::vector<std::string>(
                                         values.begin(),
                                         values.begin() + long(std::min(quickCount, values.size())))
                                   : values;
                    }};
}

std::optional<std::string> checkAlgorithmEntry(const AlgorithmInfo &algorithm,
                                               const std::deque<AlgorithmInfo> &registry,
                                               NameCheck names) {
  if (algorithm.name.empty()) return std::string("an algorithm needs a name");
  for (const AlgorithmInfo &other : registry)
    if (other.name == algorithm.name)
      return "the name is taken (by the algorithm from " + other.origin + ")";
  if (algorithm.kinds.empty()) return std::string("it implements no collective");
  if (!algorithm.build) return std::string("it has no builder");
  if (algorithm.origin.empty()) return std::string("its origin is empty");
  for (const ParamSpec &spec : algorithm.params)
    if (auto bad = checkParamSpec(spec, algorithm, registry, names)) return bad;
  for (const TuningAxis &axis : algorithm.tuning)
    if (!algorithm.findParam(axis.key) || !axis.values)
      return "tuning axis '" + axis.key + "' names no parameter it declares";
  for (const std::string &assignment : algorithm.example) {
    std::string key, value;
    ParamValue parsed;
    if (auto bad = splitAssignment(assignment, key, value)) return "example: " + *bad;
    const ParamSpec *spec = algorithm.findParam(key);
    if (!spec) return "example " + assignment + ": it declares no parameter " + key;
    if (auto bad = parseParamValue(*spec, value, parsed, names))
      return "example " + assignment + ": " + *bad;
  }
  return std::nullopt;
}

void AlgorithmRegistry::add(AlgorithmInfo algorithm) {
  if (auto bad = checkAlgorithmEntry(algorithm, entries_, NameCheck::SyntaxOnly))
    throw std::logic_error("cannot register algorithm '" + algorithm.name + "': " + *bad);
  entries_.push_back(std::move(algorithm));
}

const std::deque<AlgorithmInfo> &algorithms() { return registry(); }

const AlgorithmInfo *findAlgorithm(StringRef name) {
  for (const AlgorithmInfo &a : algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

std::string algorithmNames() {
  std::vector<std::string> names;
  for (const AlgorithmInfo &a : algorithms()) names.push_back(a.name);
  return joined(names);
}

std::optional<std::string> registerAlgorithm(AlgorithmInfo algorithm) {
  if (auto bad = checkAlgorithmEntry(algorithm, registry())) return bad;
  registry().push_back(std::move(algorithm));
  return std::nullopt;
}

std::optional<std::string> checkPermutation(const std::vector<int> &order, int ranks,
                                            StringRef what) {
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  bool ok = int(sorted.size()) == ranks;
  for (int i = 0; ok && i < ranks; ++i) ok = sorted[i] == i;
  if (ok) return std::nullopt;
  return what.str() + " [" + joined(order) + "] is not a permutation of 0.." + std::to_string(ranks - 1);
}

std::vector<int> ringOrderFor(const AlgorithmParams &params, int ranks) {
  const std::vector<int> &order = params.getIntList("order");
  if (!order.empty()) return order;
  if (params.topology && params.topology->numRanks() == ranks) return ringOrder(*params.topology);
  std::vector<int> identity(ranks);
  std::iota(identity.begin(), identity.end(), 0);
  return identity;
}

std::optional<std::string> checkRankOrder(const CollectiveSpec &spec,
                                          const AlgorithmParams &params) {
  const std::vector<int> &order = params.getIntList("order");
  if (order.empty()) return std::nullopt;
  return checkPermutation(order, spec.ranks, "ring order");
}

std::optional<std::string> checkDeviceGrouping(const CollectiveSpec &spec,
                                               const AlgorithmParams &params) {
  const int perDevice = params.getInt("ranks-per-device");
  if (spec.ranks % perDevice == 0) return std::nullopt;
  return "ranks per device " + std::to_string(perDevice) + " does not divide " +
         std::to_string(spec.ranks) + " ranks";
}

int foldedRounds(int ranks) {
  return ceilLog2(floorPowerOfTwo(ranks)) + (isPowerOfTwo(ranks) ? 0 : 1);
}

CollectiveSpec algorithmSpec(const CollectiveSpec &requested, const AlgorithmInfo &algorithm,
                             const AlgorithmParams &params) {
  CollectiveSpec spec = requested;
  spec.slices = 1;
  if (messageBlocks(spec.kind, 2) == 2 && spec.kind != CollectiveKind::Barrier)
    spec.chunks = spec.ranks;
  else if (algorithm.chunks)
    spec.chunks = algorithm.chunks(spec, params);
  if (algorithm.slices) spec.slices = algorithm.slices(spec, params);
  spec.remoteReads = algorithm.remoteReadsWith ? algorithm.remoteReadsWith(params)
                                               : algorithm.remoteReads;
  spec.sendsFirst = algorithm.sendsFirst;
  return spec;
}

bool compiledAsStages(const CollectiveSpec &requested, const AlgorithmInfo &algorithm,
                      const AlgorithmParams &params) {
  if (!algorithm.composed || composedStages(requested.kind).empty()) return false;
  return std::find(algorithm.composedKinds.begin(), algorithm.composedKinds.end(),
                   requested.kind) != algorithm.composedKinds.end() ||
         algorithmSpec(requested, algorithm, params).exceedsPositions();
}

std::optional<std::string> checkAlgorithm(const CollectiveSpec &requested,
                                          const AlgorithmInfo &algorithm,
                                          const AlgorithmParams &params) {
  if (!algorithm.supports(requested.kind))
    return "algorithm '" + algorithm.name + "' does not implement " +
           std::string(toString(requested.kind)) + " (it implements: " + algorithm.kindNames() +
           ")";
  if (params.topology && params.topology->numRanks() != requested.ranks)
    return "the topology has " + std::to_string(params.topology->numRanks()) +
           " ranks, the collective " + std::to_string(requested.ranks);
  const CollectiveSpec spec = algorithmSpec(requested, algorithm, params);
  if (auto reason = spec.check(!compiledAsStages(requested, algorithm, params))) return reason;
  if (algorithm.check) return algorithm.check(spec, params);
  return std::nullopt;
}

FailureOr<coll::ScheduleOp> buildSchedule(OpBuilder &builder, Location loc,
                                          const CollectiveSpec &requested, StringRef name,
                                          const AlgorithmInfo &algorithm,
                                          const AlgorithmParams &given, std::string &error) {
  AlgorithmParams params = given.algorithm() ? given : AlgorithmParams(algorithm, given.topology);
  if (params.algorithm() != &algorithm) {
    error = "parameters of algorithm '" + params.algorithm()->name + "' given to '" +
            algorithm.name + "'";
    return failure();
  }
  try {
    if (auto reason = checkAlgorithm(requested, algorithm, params)) {
      error = *reason;
      return failure();
    }
    if (compiledAsStages(requested, algorithm, params)) {
      error = "algorithm '" + algorithm.name + "' builds this " +
              std::string(toString(requested.kind)) + " on " + std::to_string(requested.ranks) +
              " ranks from stage plans of their own sizes (runtime/plan/Composition.h), not as "
              "one schedule: compile it to a plan";
      return failure();
    }
    ScheduleBuilder schedule(builder, loc, algorithmSpec(requested, algorithm, params), name,
                             algorithm.name);
    try {
      algorithm.build(schedule, params);
    } catch (const AlgorithmBuildError &e) {
      schedule.schedule()->erase();
      error = e.what();
      return failure();
    }
    return schedule.schedule();
  } catch (const UndeclaredParameterError &e) {
    error = e.what();
    return failure();
  }
}

namespace {

/// What a stage is asked for: `kind` over `ranks` ranks, reducing with `parent`'s op.
CollectiveSpec stageRequest(const CollectiveSpec &parent, CollectiveKind kind, int ranks) {
  CollectiveSpec spec;
  spec.kind = kind;
  spec.ranks = ranks;
  if (needsReduceOp(kind)) spec.op = parent.op;
  return spec;
}

}  // namespace

CollectiveSpec stageSpec(const CollectiveSpec &parent, CollectiveKind kind, int ranks,
                         const AlgorithmInfo &algorithm) {
  return algorithmSpec(stageRequest(parent, kind, ranks), algorithm, AlgorithmParams(algorithm));
}

std::optional<std::string> checkStage(const std::string &role, const std::string &name,
                                      CollectiveKind kind, int ranks,
                                      const CollectiveSpec &parent) {
  const AlgorithmInfo *algorithm = findAlgorithm(name);
  if (!algorithm) return role + " algorithm '" + name + "' is not registered";
  if (!algorithm->supports(kind))
    return role + " algorithm '" + name + "' does not implement " +
           std::string(toString(kind)) + " (it implements: " + algorithm->kindNames() + ")";
  if (ranks == 1) return std::nullopt;  // a stage of one rank moves nothing
  const CollectiveSpec spec = stageRequest(parent, kind, ranks);
  try {
    if (auto reason = checkAlgorithm(spec, *algorithm, AlgorithmParams(*algorithm)))
      return role + " algorithm '" + name + "' cannot " + std::string(toString(kind)) +
             " over " + std::to_string(ranks) + " ranks: " + *reason;
  } catch (const UndeclaredParameterError &e) {
    return role + " algorithm '" + name + "': " + e.what();
  }
  return std::nullopt;
}

void buildStage(ScheduleBuilder &parent, const AlgorithmInfo &algorithm,
                const CollectiveSpec &spec, StageMapping mapping) {
  ScheduleBuilder stage = parent.stage(spec, std::move(mapping));
  algorithm.build(stage, AlgorithmParams(algorithm));
}

std::vector<const ParamSpec *> registeredParams() {
  std::vector<const ParamSpec *> specs;
  for (const AlgorithmInfo &a : algorithms())
    for (const ParamSpec &spec : a.params)
      if (std::none_of(specs.begin(), specs.end(),
                       [&](const ParamSpec *s) { return s->name == spec.name; }))
        specs.push_back(&spec);
  std::sort(specs.begin(), specs.end(),
            [](const ParamSpec *a, const ParamSpec *b) { return a->name < b->name; });
  return specs;
}

}  // namespace collplan
