// The KEY=VALUE parameters of the tools, derived from the registry's specs: the key list, the
// parser, which algorithm takes which key, and the --list text.
#include "compiler/export/CompileParams.h"
#include "runtime/core/Text.h"

#include <algorithm>

namespace collplan {
namespace {

std::string joinedOr(const std::vector<std::string> &items, const std::string &none = "none") {
  return items.empty() ? none : joined(items);
}

/// One --list line of a parameter: "  channels=1  integer 1..1024: rings over ...".
std::string listingLine(const ParamSpec &spec) {
  std::string head = "  " + spec.name + "=" + spec.defaultValue;
  head.resize(std::max<size_t>(head.size() + 1, 24), ' ');
  return head + spec.syntax() + ": " + spec.help + "\n";
}

std::string listingOf(const AlgorithmInfo &a) {
  std::string kinds;
  for (CollectiveKind k : a.kinds) kinds += (kinds.empty() ? "" : ",") + std::string(toString(k));
  std::string text = a.name + "\t" + kinds + "\t" + a.summary + "\n";
  text += "  origin: " + a.origin + "\n";
  if (a.hasData()) text += listingLine(slicesParamSpec());
  for (const ParamSpec &spec : a.params) text += listingLine(spec);
  std::vector<std::string> tuned;
  for (const TuningAxis &axis : a.tuning) tuned.push_back(axis.key);
  if (a.hasData()) tuned.push_back(slicesParamSpec().name);
  if (!tuned.empty()) text += "  tuned: " + joinedOr(tuned) + "\n";
  if (a.remoteReadsWith ? a.remoteReadsWith(AlgorithmParams(a)) : a.remoteReads)
    text += "  needs: remote reads\n";
  if (a.composed)
    text += "  composed: an allreduce past the verifiers' positions is built from its stages\n";
  if (!a.example.empty()) text += "  example: " + joinedOr(a.example) + "\n";
  return text;
}

}  // namespace

std::string CompileParam::help() const {
  // A key several algorithms declare: the shortest of their helps, the least specific.
  std::string help = spec->help;
  std::vector<std::string> names;
  for (const AlgorithmInfo *a : algorithms) {
    names.push_back(a->name);
    const std::string &own = a->findParam(spec->name)->help;
    if (own.size() < help.size()) help = own;
  }
  return help + " (" + joinedOr(names, "every algorithm") + "; " + spec->syntax() + ")";
}

std::vector<CompileParam> compileParams() {
  std::vector<CompileParam> params = {{&slicesParamSpec(), {}}};
  for (const ParamSpec *spec : registeredParams()) {
    CompileParam param{spec, {}};
    for (const AlgorithmInfo &a : algorithms())
      if (a.findParam(spec->name)) param.algorithms.push_back(&a);
    params.push_back(std::move(param));
  }
  return params;
}

std::string compileParamKeys() {
  std::vector<std::string> keys;
  for (const CompileParam &p : compileParams()) keys.push_back(p.key());
  return joinedOr(keys);
}

std::vector<std::string> compileParamsTakenBy(const AlgorithmInfo &algorithm) {
  std::vector<std::string> taken;
  if (algorithm.hasData()) taken.push_back(slicesParamSpec().name);
  for (const ParamSpec &spec : algorithm.params) taken.push_back(spec.name);
  return taken;
}

std::optional<std::string> applyCompileParam(std::string_view assignment,
                                             const AlgorithmInfo *algorithm,
                                             CompileOptions &options, std::string *key) {
  std::string name, text;
  if (splitAssignment(assignment, name, text))
    return "expected KEY=VALUE (keys: " + compileParamKeys() + ")";
  if (key) *key = name;
  const std::vector<CompileParam> all = compileParams();
  auto known = std::find_if(all.begin(), all.end(),
                            [&](const CompileParam &p) { return p.key() == name; });
  if (known == all.end())
    return "unknown key \"" + name + "\" (valid keys: " + compileParamKeys() + ")";
  const ParamSpec *spec = known->spec;
  if (algorithm) {
    const std::vector<std::string> taken = compileParamsTakenBy(*algorithm);
    if (std::find(taken.begin(), taken.end(), name) == taken.end())
      return "algorithm '" + algorithm->name + "' does not take " + name + " (it takes: " +
             joinedOr(taken) + ")";
    if (const ParamSpec *own = algorithm->findParam(name)) spec = own;
  }
  ParamValue value;
  if (auto bad = parseParamValue(*spec, text, value)) return bad;
  if (spec == &slicesParamSpec())
    options.slices = std::get<int>(value);
  else
    options.params.push_back(name + "=" + text);
  return std::nullopt;
}

std::string algorithmListing() {
  std::string text;
  for (const AlgorithmInfo &a : algorithms()) text += listingOf(a);
  return text;
}

}  // namespace collplan
