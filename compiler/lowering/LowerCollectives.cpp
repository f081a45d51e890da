// lowerCollectives: every coll.collective of a module replaced by its algorithm's schedule, with
// the parameters each algorithm declares.
#include "compiler/lowering/Algorithms.h"

#include "mlir/IR/Builders.h"

#include <set>

using namespace mlir;

namespace collplan {
namespace {

using Assignment = std::pair<std::string, std::string>;

std::string keyList() {
  std::string keys;
  for (const ParamSpec *spec : registeredParams())
    keys += (keys.empty() ? "" : ", ") + spec->name;
  return keys;
}

/// The request's KEY=VALUE texts split, each key registered and given once; errors go to
/// `module`.
std::optional<std::vector<Assignment>> parseAssignments(ModuleOp module,
                                                        const std::vector<std::string> &texts) {
  const std::vector<const ParamSpec *> known = registeredParams();
  std::vector<Assignment> out;
  bool ok = true;
  for (const std::string &text : texts) {
    Assignment a;
    if (auto bad = splitAssignment(text, a.first, a.second)) {
      module.emitError() << "params: " << *bad;
      ok = false;
    } else if (a.first == slicesParamSpec().name) {
      module.emitError() << "params: " << text
                         << ": slices is not a lowering parameter: coll-slice cuts the chunks "
                            "(coll-compile's `slices` option, plan-compile --slices)";
      ok = false;
    } else if (std::none_of(known.begin(), known.end(),
                            [&](const ParamSpec *s) { return s->name == a.first; })) {
      module.emitError() << "params: " << text << ": unknown key \"" << a.first
                         << "\" (valid keys: " << keyList() << ")";
      ok = false;
    } else if (std::any_of(out.begin(), out.end(),
                           [&](const Assignment &b) { return b.first == a.first; })) {
      module.emitError() << "params: " << text << ": " << a.first << " is given twice";
      ok = false;
    }
    out.push_back(a);
  }
  if (!ok) return std::nullopt;
  return out;
}

/// Lowers one collective; `taken` collects the keys its algorithm declares.
LogicalResult lowerOne(coll::CollectiveOp op, const LoweringRequest &request,
                       const std::vector<Assignment> &assignments,
                       std::set<std::string> &taken) {
  const std::string name = op.getAlgorithm() ? op.getAlgorithm()->str() : request.algorithm;
  if (name.empty())
    return op.emitError() << "names no algorithm: give it `algorithm \"ring\"` (say) or run "
                             "coll-lower with algorithm=NAME";
  const AlgorithmInfo *algorithm = findAlgorithm(name);
  if (!algorithm)
    return op.emitError() << "unknown algorithm '" << name << "' (known: " << algorithmNames()
                          << ")";
  AlgorithmParams params(*algorithm, request.topology);
  for (const auto &[key, value] : assignments) {
    if (!algorithm->findParam(key)) continue;
    taken.insert(key);
    if (auto bad = params.set(key, value)) return op.emitError() << "parameter " << *bad;
  }
  OpBuilder builder(op);
  std::string error;
  auto schedule = buildSchedule(builder, op.getLoc(), CollectiveSpec::fromOp(op),
                                op.getSymName(), *algorithm, params, error);
  if (failed(schedule)) return op.emitError() << error;
  op.erase();
  return success();
}

}  // namespace

LogicalResult lowerCollectives(ModuleOp module, const LoweringRequest &request) {
  const std::optional<std::vector<Assignment>> assignments =
      parseAssignments(module, request.params);
  if (!assignments) return failure();
  SmallVector<coll::CollectiveOp> collectives;
  module.walk([&](coll::CollectiveOp op) { collectives.push_back(op); });
  bool ok = true;
  std::set<std::string> taken, used;
  for (coll::CollectiveOp op : collectives) {
    used.insert(op.getAlgorithm() ? op.getAlgorithm()->str() : request.algorithm);
    ok &= succeeded(lowerOne(op, request, *assignments, taken));
  }
  if (!ok) return failure();
  for (const auto &[key, value] : *assignments) {
    if (taken.count(key)) continue;
    std::string names;
    for (const std::string &name : used) names += (names.empty() ? "" : ", ") + name;
    module.emitError() << "params: " << key << "=" << value << ": no algorithm lowered here takes "
                       << key << " (lowered: " << (names.empty() ? "none" : names) << ")";
    ok = false;
  }
  return success(ok);
}

}  // namespace collplan
