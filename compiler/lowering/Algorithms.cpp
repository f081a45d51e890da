// The algorithm registry, schedule construction and the shared lowering driver.
#include "compiler/lowering/Algorithms.h"

#include "runtime/topology/Queries.h"
#include "runtime/topology/Topology.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace collplan {

bool AlgorithmInfo::supports(CollectiveKind kind) const {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

TuningAxis deviceGroupingAxis() {
  return TuningAxis{"ranks-per-device", [](const CollectiveSpec &spec, bool quick) {
                      std::vector<std::string> out;
                      for (int k : {1, 2, 4})
                        if (spec.ranks % k == 0 && k <= spec.ranks && (!quick || k == 1))
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

const std::vector<AlgorithmInfo> &algorithms() {
  static const std::vector<AlgorithmInfo> registry = [] {
    std::vector<AlgorithmInfo> r;
    registerRingAlgorithms(r);
    registerFlatAlgorithms(r);
    registerTreeAlgorithms(r);
    registerRdhAlgorithms(r);
    registerPairwiseAlgorithms(r);
    registerKangaRingAlgorithms(r);
    registerMeshAlgorithms(r);
    registerShotAlgorithms(r);
    registerHierarchicalAlgorithms(r);
    return r;
  }();
  return registry;
}

const AlgorithmInfo *findAlgorithm(StringRef name) {
  for (const AlgorithmInfo &a : algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

std::string algorithmNames() {
  std::string names;
  for (const AlgorithmInfo &a : algorithms()) names += (names.empty() ? "" : ", ") + a.name;
  return names;
}

std::optional<std::string> checkPermutation(const std::vector<int> &order, int ranks,
                                            StringRef what) {
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  bool ok = int(sorted.size()) == ranks;
  for (int i = 0; ok && i < ranks; ++i) ok = sorted[i] == i;
  if (ok) return std::nullopt;
  std::string text = what.str() + " [";
  for (size_t i = 0; i < order.size(); ++i) text += (i ? ", " : "") + std::to_string(order[i]);
  return text + "] is not a permutation of 0.." + std::to_string(ranks - 1);
}

std::vector<int> ringOrderFor(const AlgorithmParams &params, int ranks) {
  if (!params.order.empty()) return params.order;
  if (params.topology && params.topology->numRanks() == ranks) return ringOrder(*params.topology);
  std::vector<int> order(ranks);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

/// Checks that apply to every algorithm.
static std::optional<std::string> checkCommon(const CollectiveSpec &spec,
                                              const AlgorithmInfo &algorithm,
                                              const AlgorithmParams &params) {
  if (!algorithm.supports(spec.kind)) {
    std::string kinds;
    for (CollectiveKind k : algorithm.kinds) kinds += (kinds.empty() ? "" : ", ") + std::string(toString(k));
    return "algorithm '" + algorithm.name + "' does not implement " +
           std::string(toString(spec.kind)) + " (it implements: " + kinds + ")";
  }
  if (params.channels < 1)
    return "channels must be at least 1 (got " + std::to_string(params.channels) + ")";
  if (params.fanout < 2) return "fanout must be at least 2 (got " + std::to_string(params.fanout) + ")";
  if (params.ranksPerDevice < 1 || spec.ranks % params.ranksPerDevice != 0)
    return "ranks per device " + std::to_string(params.ranksPerDevice) + " does not divide " +
           std::to_string(spec.ranks) + " ranks";
  bool devicesOrder = algorithm.orderOverDevices && int(params.order.size()) != spec.ranks;
  if (!params.order.empty() && !devicesOrder)
    if (auto bad = checkPermutation(params.order, spec.ranks, "ring order")) return bad;
  if (params.topology && params.topology->numRanks() != spec.ranks)
    return "the topology has " + std::to_string(params.topology->numRanks()) +
           " ranks, the collective " + std::to_string(spec.ranks);
  if (auto reason = spec.check()) return reason;
  return std::nullopt;
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
  if (algorithm.remoteReads) spec.remoteReads = true;
  return spec;
}

FailureOr<coll::ScheduleOp> buildSchedule(OpBuilder &builder, Location loc,
                                          const CollectiveSpec &requested, StringRef name,
                                          const AlgorithmInfo &algorithm,
                                          const AlgorithmParams &params, std::string &error) {
  CollectiveSpec spec = algorithmSpec(requested, algorithm, params);
  if (auto reason = checkCommon(spec, algorithm, params)) {
    error = *reason;
    return failure();
  }
  if (algorithm.check)
    if (auto reason = algorithm.check(spec, params)) {
      error = *reason;
      return failure();
    }
  ScheduleBuilder schedule(builder, loc, spec, name, algorithm.name);
  algorithm.build(schedule, params);
  return schedule.schedule();
}

LogicalResult lowerCollectives(ModuleOp module, StringRef family, const AlgorithmParams &params) {
  bool ok = true;
  SmallVector<coll::CollectiveOp> collectives;
  module.walk([&](coll::CollectiveOp op) { collectives.push_back(op); });
  for (coll::CollectiveOp op : collectives) {
    std::optional<StringRef> name = op.getAlgorithm();
    if (!name) continue;
    const AlgorithmInfo *algorithm = findAlgorithm(*name);
    if (!algorithm) {
      // Unknown names are reported once, by whichever family pass runs: the set is global.
      op.emitError() << "unknown algorithm '" << *name << "' (known: " << algorithmNames() << ")";
      ok = false;
      continue;
    }
    if (!family.empty() && algorithm->family != family) continue;
    OpBuilder builder(op);
    std::string error;
    auto schedule = buildSchedule(builder, op.getLoc(), CollectiveSpec::fromOp(op),
                                  op.getSymName(), *algorithm, params, error);
    if (failed(schedule)) {
      op.emitError() << error;
      ok = false;
      continue;
    }
    op.erase();
  }
  return success(ok);
}

}  // namespace collplan
