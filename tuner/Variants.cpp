// Enumerates algorithm × parameter variants from the registry and compiles each once.
#include "tuner/Variants.h"

#include "compiler/export/PlanCompiler.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/topology/Topology.h"

#include <algorithm>
#include <map>

namespace collplan::tune {
namespace {

/// The values each parameter takes for one algorithm; a single value means "not varied".
struct Axes {
  std::vector<int> channels{1};
  std::vector<bool> bidirectional{false};
  std::vector<int> fanout{2};
  std::vector<int> pipeline{4};
  std::vector<int> ranksPerDevice{1};
  std::vector<std::string> inter{"ring"};
  std::vector<int> slices{1, 2, 4};
};

/// Divisors of `ranks` among 1, 2, 4 (ranks per device worth trying without a topology).
std::vector<int> deviceGroupings(int ranks) {
  std::vector<int> out;
  for (int k : {1, 2, 4})
    if (ranks % k == 0 && k <= ranks) out.push_back(k);
  return out;
}

Axes axesFor(const AlgorithmInfo &a, const CollectiveSpec &spec, bool quick) {
  Axes x;
  if (quick) x.slices = {1, 2};
  if (spec.kind == CollectiveKind::Barrier) x.slices = {1};  // tokens have no size to slice
  if (a.name == "ring") {
    x.channels = {1, 2};
    x.bidirectional = {false, true};
  } else if (a.name == "pipelined-tree") {
    x.fanout = quick ? std::vector<int>{2} : std::vector<int>{2, 4};
    x.pipeline = quick ? std::vector<int>{4} : std::vector<int>{2, 4, 8};
  } else if (a.name == "double-binary-tree") {
    x.pipeline = quick ? std::vector<int>{4} : std::vector<int>{2, 4, 8};
  }
  if (a.family == "kangaring" || a.family == "mesh" || a.family == "rdh" ||
      a.family == "hierarchical")
    x.ranksPerDevice = quick ? std::vector<int>{1} : deviceGroupings(spec.ranks);
  if (a.name == "hierarchical") x.inter = {"ring", "recursive-doubling"};
  return x;
}

std::string labelOf(const Variant &v) {
  const AlgorithmParams defaults;
  std::string s = v.algorithm;
  if (v.params.channels != defaults.channels) s += " ch" + std::to_string(v.params.channels);
  if (v.params.bidirectional) s += " bidir";
  if (v.params.fanout != defaults.fanout) s += " f" + std::to_string(v.params.fanout);
  if (v.params.pipeline != defaults.pipeline) s += " p" + std::to_string(v.params.pipeline);
  if (v.params.ranksPerDevice != defaults.ranksPerDevice)
    s += " rpd" + std::to_string(v.params.ranksPerDevice);
  if (v.params.inter != defaults.inter) s += " inter=" + v.params.inter;
  if (v.slices != 1) s += " s" + std::to_string(v.slices);
  return s;
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
  nlohmann::json j = {{"channels", params.channels},
                      {"bidirectional", params.bidirectional},
                      {"fanout", params.fanout},
                      {"pipeline", params.pipeline},
                      {"ranks_per_device", params.ranksPerDevice},
                      {"slices", slices}};
  if (family == "hierarchical") j["inter"] = params.inter;
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
    const Axes x = axesFor(a, spec, quick);
    for (int ch : x.channels)
      for (bool bidir : x.bidirectional)
        for (int fanout : x.fanout)
          for (int pipeline : x.pipeline)
            for (int rpd : x.ranksPerDevice)
              for (const std::string &inter : x.inter)
                for (int slices : x.slices) {
                  Variant v;
                  v.algorithm = a.name;
                  v.family = a.family;
                  v.params.channels = ch;
                  v.params.bidirectional = bidir;
                  v.params.fanout = fanout;
                  v.params.pipeline = pipeline;
                  v.params.ranksPerDevice = rpd;
                  v.params.inter = inter;
                  v.params.topology = topology;
                  v.slices = slices;
                  v.label = labelOf(v);
                  out.push_back(std::move(v));
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
