// Enumerates algorithm × parameter variants from the registry and compiles each once.
#include "tuner/Variants.h"

#include "compiler/export/CompileParams.h"
#include "compiler/export/PlanCompiler.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/topology/Topology.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace collplan::tune {
namespace {

/// The short label of one setting ("ch2", "bidir", "f4", "p8", "rpd2", "inter=ring", "s2").
std::string settingLabel(const std::string &key, const std::string &value) {
  static const std::map<std::string, std::string> abbreviation = {
      {"channels", "ch"}, {"fanout", "f"}, {"pipeline", "p"}, {"ranks-per-device", "rpd"},
      {"slices", "s"}};
  if (key == "bidirectional") return value == "true" ? "bidir" : "";
  auto it = abbreviation.find(key);
  return it != abbreviation.end() ? it->second + value : key + "=" + value;
}

/// The axes plan-tune walks for `a`: its registry entry's, then slices ({1, 2, 4}; {1, 2}
/// quick) for collectives with data.
std::vector<std::pair<std::string, std::vector<std::string>>>
axesFor(const AlgorithmInfo &a, const CollectiveSpec &spec, bool quick) {
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  for (const TuningAxis &axis : a.tuning) axes.emplace_back(axis.key, axis.values(spec, quick));
  if (spec.kind != CollectiveKind::Barrier)  // tokens have no size to slice
    axes.emplace_back("slices", quick ? std::vector<std::string>{"1", "2"}
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

}  // namespace

nlohmann::json Variant::paramsJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto &[key, value] : settings) j[key] = value;
  return j;
}

int VariantSet::count(const std::string &status) const {
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
      Variant v;
      v.algorithm = a.name;
      v.family = a.family;
      v.label = a.name;
      CompileOptions options;
      for (size_t k = 0; k < axes.size(); ++k) {
        const std::string &key = axes[k].first, &value = axes[k].second[at[k]];
        if (auto error = applyCompileParam(key + "=" + value, options))
          throw std::logic_error(a.name + "'s tuning axis " + key + "=" + value + ": " + *error);
        v.settings.emplace_back(key, value);
        if (at[k] > 0 || key == "slices") {  // values other than an axis's first are named
          const std::string label = settingLabel(key, value);
          if (!label.empty() && !(key == "slices" && value == "1")) v.label += " " + label;
        }
      }
      v.params = options.params;
      v.params.topology = topology;
      v.slices = options.slices;
      out.push_back(std::move(v));
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
    const Variant &v = variants[i];
    if (onProgress) onProgress(i, variants.size());
    const AlgorithmInfo *a = findAlgorithm(v.algorithm);
    if (a && a->check)
      if (auto reason = a->check(algorithmSpec(spec, *a, v.params), v.params)) {
        set.notes.push_back({v.label, "not-applicable", *reason});
        continue;
      }
    CompileOptions options;
    options.algorithm = v.algorithm;
    options.params = v.params;
    options.slices = v.slices;
    std::string error;
    mlir::FailureOr<CompiledPlan> compiled = mlir::failure();
    try {
      compiled = compileCollective(spec, options, error);
    } catch (const std::exception &e) {
      error = e.what();
    }
    if (failed(compiled)) {
      // Parameter checks shared by every algorithm (divisibility, counts) say "not applicable";
      // anything later is a compiler failure worth reporting.
      const bool parameterReject = error.find("does not divide") != std::string::npos ||
                                   error.find("must be at least") != std::string::npos;
      const size_t eol = error.find('\n');
      set.notes.push_back({v.label, parameterReject ? "not-applicable" : "compile-failed",
                           eol == std::string::npos ? error : error.substr(0, eol)});
      continue;
    }
    const std::string key = planKey(compiled->plan);
    auto [it, fresh] = seen.emplace(key, v.label);
    if (!fresh) {
      set.notes.push_back({v.label, "duplicate", "same plan as " + it->second});
      continue;
    }
    CompiledVariant cv;
    cv.variant = v;
    cv.variant.params.topology = nullptr;  // the compiled plan no longer needs it
    cv.plan = std::move(compiled->plan);
    cv.alphaRounds = double(compiled->cost.alphaRounds);
    cv.beta = compiled->cost.beta;
    set.compiled.push_back(std::move(cv));
  }
  if (onProgress) onProgress(variants.size(), variants.size());
  return set;
}

std::vector<std::string> unknownAlgorithms(const std::vector<std::string> &filter) {
  std::vector<std::string> unknown;
  for (const std::string &name : filter)
    if (!findAlgorithm(name)) unknown.push_back(name);
  return unknown;
}

}  // namespace collplan::tune
