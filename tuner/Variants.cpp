// Enumerates algorithm × parameter variants from the registry and compiles each once.
#include "tuner/Variants.h"

#include "compiler/export/PlanCompiler.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/PlanVerify.h"
#include "runtime/topology/Topology.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

namespace collplan::tune {
namespace {

/// The label of a setting whose value differs from its spec's default: the spec's label and
/// the value ("ch2", "f4", "s2"), a Bool's label ("bidir"), or "key=value".
std::string settingLabel(const ParamSpec &spec, const std::string &value) {
  const std::string name = spec.label.empty() ? spec.name : spec.label;
  if (spec.type == ParamType::Bool) return value == "true" ? name : "no-" + name;
  return spec.label.empty() ? spec.name + "=" + value : spec.label + value;
}

/// True when `value` is `spec`'s default (compared as values: "01" is "1").
bool isDefault(const ParamSpec &spec, const std::string &value) {
  ParamValue given, fallback;
  parseParamValue(spec, value, given);
  parseParamValue(spec, spec.defaultValue, fallback);
  return given == fallback;
}

/// The axes plan-tune walks for `a`: its registry entry's, then slices ({1, 2, 4}; {1, 2}
/// quick) for collectives with data, unless the algorithm pipelines itself.
std::vector<std::pair<std::string, std::vector<std::string>>>
axesFor(const AlgorithmInfo &a, const CollectiveSpec &spec, bool quick) {
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  for (const TuningAxis &axis : a.tuning) axes.emplace_back(axis.key, axis.values(spec, quick));
  if (spec.kind != CollectiveKind::Barrier && !a.pipelinesItself)  // tokens have no size
    axes.emplace_back(slicesParamSpec().name, quick ? std::vector<std::string>{"1", "2"}
                                      : std::vector<std::string>{"1", "2", "4"});
  return axes;
}

/// The plan's identity for de-duplication: its programs, units and scratch, not its name.
std::string planKey(const Plan &plan) {
  nlohmann::json j = planToJson(plan);
  j.erase("algorithm");
  j.erase("params");
  j.erase("predicted");
  return j.dump();
}

/// The variant of `a` with `settings` (the algorithm's keys and slices): its values checked by
/// the specs (a value a spec refuses is a bug in the algorithm's tuning axes) and its label.
Variant makeVariant(const AlgorithmInfo &a,
                    const std::vector<std::pair<std::string, std::string>> &settings,
                    const Topology *topology) {
  Variant v;
  v.algorithm = a.name;
  v.origin = a.origin;
  v.label = a.name;
  v.params = AlgorithmParams(a, topology);
  v.settings = settings;
  for (const auto &[key, value] : settings) {
    const bool slices = key == slicesParamSpec().name;
    const ParamSpec &spec = slices ? slicesParamSpec() : *a.findParam(key);
    ParamValue parsed;
    std::optional<std::string> error = slices ? parseParamValue(spec, value, parsed)
                                              : v.params.set(key, value);
    if (error)
      throw std::logic_error(a.name + "'s tuning axis " + key + "=" + value + ": " + *error);
    if (slices) v.slices = std::get<int>(parsed);
    if (!isDefault(spec, value)) v.label += " " + settingLabel(spec, value);
  }
  return v;
}

/// Why the algorithm refuses `v`'s parameters for `spec` (checkAlgorithm), or nothing.
std::optional<std::string> notApplicable(const CollectiveSpec &spec, const Variant &v) {
  const AlgorithmInfo *a = findAlgorithm(v.algorithm);
  return a ? checkAlgorithm(spec, *a, v.params) : std::nullopt;
}

/// `v` compiled with its cost; nothing, with the compiler's first line in `error`, on failure.
std::optional<CompiledVariant> compileVariant(const CollectiveSpec &spec, const Variant &v,
                                              std::string &error) {
  CompileOptions options;
  options.algorithm = v.algorithm;
  for (const auto &[key, value] : v.settings)
    if (key != slicesParamSpec().name) options.params.push_back(key + "=" + value);
  options.topology = v.params.topology;
  options.slices = v.slices;
  mlir::FailureOr<CompiledPlan> compiled = mlir::failure();
  try {
    compiled = compileCollective(spec, options, error);
  } catch (const std::exception &e) {
    error = e.what();
  }
  if (failed(compiled)) {
    error = error.substr(0, error.find('\n'));
    return std::nullopt;
  }
  CompiledVariant cv;
  cv.variant = v;
  cv.variant.params.topology = nullptr;  // the compiled plan no longer needs it
  cv.plan = std::move(compiled->plan);
  cv.alphaRounds = double(compiled->cost.alphaRounds);
  cv.beta = compiled->cost.beta;
  return cv;
}

/// The runtime's own plan named after `twin`'s algorithm (DefaultPlans.h: a generator with the
/// same messages, built without the compiler), as a variant of its own, or nothing when the
/// runtime has none for this collective or `twin` is not the algorithm's default variant.
/// Its plan can differ in how a rank stages and reads its data (the cuda backend's built-in
/// two-shot reads its peers' inputs in place), so it is measured beside the compiled one; its
/// α-β cost is the twin's, whose messages it sends.
std::optional<CompiledVariant> runtimeTwin(const CollectiveSpec &spec,
                                           const CompiledVariant &twin) {
  const Variant &v = twin.variant;
  if (v.label != v.algorithm || v.slices != 1) return std::nullopt;
  const BuiltInPlan *generator = findBuiltInPlan(v.algorithm, spec.kind);
  if (!generator) return std::nullopt;
  CompiledVariant runtime = twin;
  runtime.variant.origin = kRuntimeOrigin;
  runtime.variant.label = v.algorithm + " (" + kRuntimeOrigin + ")";
  runtime.plan = generator->make(spec.kind, spec.ranks, spec.op.value_or(ReduceOp::Sum),
                                 spec.root, -1);
  return runtime;
}

}  // namespace

nlohmann::json Variant::paramsJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto &[key, value] : settings) j[key] = value;
  return j;
}

std::string_view toString(VariantStatus status) {
  switch (status) {
  case VariantStatus::Measured: return "measured";
  case VariantStatus::NotMeasured: return "not-measured";
  case VariantStatus::NotApplicable: return "not-applicable";
  case VariantStatus::CompileFailed: return "compile-failed";
  case VariantStatus::Duplicate: return "duplicate";
  case VariantStatus::Unsupported: return "unsupported";
  case VariantStatus::Pruned: return "pruned";
  case VariantStatus::RunFailed: return "run-failed";
  case VariantStatus::Wrong: return "wrong";
  }
  return "unknown";
}

int VariantSet::count(VariantStatus status) const {
  return int(std::count_if(notes.begin(), notes.end(),
                           [&](const VariantNote &n) { return n.status == status; }));
}

std::vector<Variant> enumerateVariants(const CollectiveSpec &spec, const Topology *topology,
                                       const std::vector<std::string> &filter, bool quick) {
  std::vector<Variant> out;
  for (const AlgorithmInfo &a : algorithms()) {
    if (!a.supports(spec.kind)) continue;
    if (!filter.empty() && std::find(filter.begin(), filter.end(), a.name) == filter.end())
      continue;
    const auto axes = axesFor(a, spec, quick);
    // Every combination: an odometer over the axes' values (the first axis turns slowest).
    std::vector<size_t> at(axes.size(), 0);
    if (std::any_of(axes.begin(), axes.end(), [](const auto &x) { return x.second.empty(); }))
      continue;
    for (;;) {
      std::vector<std::pair<std::string, std::string>> settings;
      for (size_t k = 0; k < axes.size(); ++k)
        settings.emplace_back(axes[k].first, axes[k].second[at[k]]);
      out.push_back(makeVariant(a, settings, topology));
      size_t k = axes.size();
      while (k > 0 && ++at[k - 1] == axes[k - 1].second.size()) at[--k] = 0;
      if (k == 0) break;
    }
  }
  return out;
}

VariantSet compileVariants(const CollectiveSpec &spec, const std::vector<Variant> &variants,
                           const std::function<void(size_t, size_t)> &onProgress) {
  VariantSet set;
  set.enumerated = int(variants.size());
  std::map<std::string, std::string> seen;  // plan key -> label of the first variant
  for (size_t i = 0; i < variants.size(); ++i) {
    if (onProgress) onProgress(i, variants.size());
    const Variant &v = variants[i];
    if (std::optional<std::string> reason = notApplicable(spec, v)) {
      set.notes.push_back({v.label, VariantStatus::NotApplicable, *reason});
      continue;
    }
    std::string error;
    std::optional<CompiledVariant> compiled = compileVariant(spec, v, error);
    if (!compiled) {
      set.notes.push_back({v.label, VariantStatus::CompileFailed, error});
      continue;
    }
    std::optional<CompiledVariant> runtime = runtimeTwin(spec, *compiled);
    for (std::optional<CompiledVariant> *cv : {&compiled, &runtime}) {
      if (!*cv) continue;
      const std::string &label = (*cv)->variant.label;
      auto [it, fresh] = seen.emplace(planKey((*cv)->plan), label);
      if (fresh)
        set.compiled.push_back(std::move(**cv));
      else
        set.notes.push_back({label, VariantStatus::Duplicate, "same plan as " + it->second});
    }
  }
  if (onProgress) onProgress(variants.size(), variants.size());
  return set;
}

void keepRankOrderPlans(VariantSet &set) {
  std::vector<CompiledVariant> kept;
  for (CompiledVariant &v : set.compiled) {
    if (std::optional<std::string> why = markRankOrder(v.plan))
      set.notes.push_back({v.variant.label, VariantStatus::NotApplicable,
                           *why + " (--fixed-reduction-order)"});
    else
      kept.push_back(std::move(v));
  }
  set.compiled = std::move(kept);
}

std::vector<std::string> unknownAlgorithms(const std::vector<std::string> &filter) {
  std::vector<std::string> unknown;
  for (const std::string &name : filter)
    if (!findAlgorithm(name)) unknown.push_back(name);
  return unknown;
}

}  // namespace collplan::tune
