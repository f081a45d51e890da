// Binding a template's parameters: KEY=VALUE text, the collective, the topology, the defaults.
#include "compiler/template/TemplateArguments.h"

#include "runtime/topology/Topology.h"

#include <charconv>
#include <set>
#include <sstream>

using namespace mlir;

namespace collplan {
namespace {

/// Ranks per node (or per device) when every node (device) holds the same number of the
/// topology's ranks, else nothing.
std::optional<int64_t> uniformGroup(const Topology &topology, bool byNode) {
  std::map<int, int64_t> sizes;
  for (int rank = 0; rank < topology.numRanks(); ++rank)
    ++sizes[byNode ? topology.nodeOf(rank) : topology.deviceOf(rank)];
  if (sizes.empty()) return std::nullopt;
  const int64_t first = sizes.begin()->second;
  for (const auto &[group, size] : sizes)
    if (size != first) return std::nullopt;
  return first;
}

std::string parameterList(coll::TemplateOp tmpl) {
  std::string names;
  for (Attribute name : tmpl.getParams())
    names += (names.empty() ? "" : ", ") + cast<StringAttr>(name).str();
  return names;
}

}  // namespace

std::optional<std::string> parseTemplateArguments(const std::string &text,
                                                  std::map<std::string, int64_t> &out) {
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
      return "\"" + word + "\": expected KEY=VALUE (e.g. rows=2)";
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    int64_t number = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size())
      return "\"" + word + "\": the value of " + key + " is not an integer";
    if (!out.emplace(key, number).second) return "\"" + key + "\" is given twice";
  }
  return std::nullopt;
}

std::optional<std::string> bindTemplateArguments(coll::TemplateOp tmpl,
                                                 const CollectiveSpec &spec,
                                                 const std::map<std::string, int64_t> &given,
                                                 const Topology *topology,
                                                 TemplateArguments &out) {
  std::set<std::string> names;
  for (Attribute name : tmpl.getParams()) names.insert(cast<StringAttr>(name).str());
  const std::string self = "template @" + tmpl.getSymName().str();
  for (const auto &[key, value] : given) {
    if (!names.count(key))
      return self + " has no parameter '" + key + "' (its parameters: " + parameterList(tmpl) +
             ")";
    if (key == "ranks") return "'ranks' is the rank count of the collective, not a parameter";
  }
  DictionaryAttr defaults = tmpl.getDefaultsAttr();
  // A topology of another rank count says nothing about this collective's groups.
  const bool fits = topology && topology->numRanks() == spec.ranks;
  for (const std::string &name : names) {
    std::optional<int64_t> value;
    if (name == "ranks") value = spec.ranks;
    else if (name == "root") value = spec.root;
    else if (auto it = given.find(name); it != given.end()) value = it->second;
    else if (fits && name == "ranks-per-node") value = uniformGroup(*topology, true);
    else if (fits && name == "ranks-per-device") value = uniformGroup(*topology, false);
    if (!value && defaults)
      if (auto v = dyn_cast_or_null<IntegerAttr>(defaults.get(name))) value = v.getInt();
    if (!value)
      return self + ": parameter '" + name + "' has no value: give it (" + name +
             "=VALUE), or a default in the template";
    out[name] = *value;
  }
  return std::nullopt;
}

std::string describeArguments(const TemplateArguments &args) {
  std::string text = "ranks=" + std::to_string(args.count("ranks") ? args.at("ranks") : 0);
  for (const auto &[name, value] : args)
    if (name != "ranks") text += ", " + name + "=" + std::to_string(value);
  return text;
}

}  // namespace collplan
