// Parameter specs and values: parsing, range checks, formatting and the typed accessors.
#include "compiler/lowering/AlgorithmParams.h"
#include "runtime/core/Text.h"

#include "compiler/lowering/Algorithms.h"

#include <charconv>
#include <limits>

namespace collplan {
namespace {

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

/// The whole of `text` as an integer (64-bit, so "above the maximum" can be said of values that
/// do not fit an int), or nothing.
std::optional<long long> parseInteger(std::string_view text) {
  long long value = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

/// Why `value` (written `text`) lies outside [min, max], or nothing.
std::optional<std::string> outOfRange(const ParamSpec &spec, long long value,
                                      std::string_view text) {
  if (value < spec.min)
    return quoted(text) + " is below the minimum of " + std::to_string(spec.min);
  if (value > spec.max)
    return quoted(text) + " is above the maximum of " + std::to_string(spec.max);
  return std::nullopt;
}

std::optional<std::string> parseInt(const ParamSpec &spec, std::string_view text,
                                    ParamValue &out) {
  const std::optional<long long> v = parseInteger(text);
  if (!v) return quoted(text) + " is not an integer";
  if (auto bad = outOfRange(spec, *v, text)) return bad;
  out = int(*v);
  return std::nullopt;
}

std::optional<std::string> parseIntList(const ParamSpec &spec, std::string_view text,
                                        ParamValue &out) {
  std::vector<int> values;
  for (size_t start = 0; !text.empty();) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma - start);
    const std::optional<long long> v = parseInteger(item);
    if (!v)
      return quoted(text) + " is not a comma-separated list of integers (e.g. 0,2,1,3)";
    if (auto bad = outOfRange(spec, *v, item)) return "in " + quoted(text) + ": " + *bad;
    values.push_back(int(*v));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  out = std::move(values);
  return std::nullopt;
}

std::optional<std::string> parseBool(std::string_view text, ParamValue &out) {
  if (text == "true" || text == "1") out = true;
  else if (text == "false" || text == "0") out = false;
  else return quoted(text) + " is not true or false";
  return std::nullopt;
}

std::optional<std::string> parseAlgorithmName(std::string_view text, ParamValue &out,
                                              NameCheck names) {
  if (text.empty()) return std::string("the algorithm name is empty");
  if (names == NameCheck::Registry && !findAlgorithm(llvm::StringRef(text.data(), text.size())))
    return quoted(text) + " is not a registered algorithm (known: " + algorithmNames() + ")";
  out = std::string(text);
  return std::nullopt;
}

std::string joinedOrNone(const std::vector<std::string> &items) {
  return items.empty() ? "none" : joined(items);
}

}  // namespace

std::string_view toString(ParamType type) {
  switch (type) {
  case ParamType::Int: return "integer";
  case ParamType::Bool: return "true|false";
  case ParamType::IntList: return "comma-separated integers";
  case ParamType::AlgorithmName: return "algorithm name";
  }
  return "?";
}

std::string ParamSpec::syntax() const {
  const std::string range = " " + std::to_string(min) + ".." + std::to_string(max);
  switch (type) {
  case ParamType::Int: return "integer" + range;
  case ParamType::IntList: return "comma-separated integers, each" + range;
  default: return std::string(toString(type));
  }
}

ParamSpec intParam(std::string name, int defaultValue, int min, int max, std::string help,
                   std::string label) {
  return {std::move(name), ParamType::Int, std::to_string(defaultValue), min, max,
          std::move(help), std::move(label)};
}

ParamSpec boolParam(std::string name, bool defaultValue, std::string help, std::string label) {
  return {std::move(name), ParamType::Bool, defaultValue ? "true" : "false", 0, 1,
          std::move(help), std::move(label)};
}

ParamSpec intListParam(std::string name, int min, int max, std::string help) {
  return {std::move(name), ParamType::IntList, "", min, max, std::move(help), ""};
}

ParamSpec algorithmParam(std::string name, std::string defaultValue, std::string help) {
  return {std::move(name), ParamType::AlgorithmName, std::move(defaultValue), 0, 0,
          std::move(help), ""};
}

const ParamSpec &slicesParamSpec() {
  static const ParamSpec slices =
      intParam("slices", 1, 1, kMaxCount, "pipelining slices per chunk (coll-slice)", "s");
  return slices;
}

std::optional<std::string> parseParamValue(const ParamSpec &spec, std::string_view text,
                                           ParamValue &out, NameCheck names) {
  switch (spec.type) {
  case ParamType::Int: return parseInt(spec, text, out);
  case ParamType::Bool: return parseBool(text, out);
  case ParamType::IntList: return parseIntList(spec, text, out);
  case ParamType::AlgorithmName: return parseAlgorithmName(text, out, names);
  }
  return std::string("unknown parameter type");
}

std::string formatParamValue(const ParamValue &value) {
  if (auto *i = std::get_if<int>(&value)) return std::to_string(*i);
  if (auto *b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (auto *s = std::get_if<std::string>(&value)) return *s;
  std::string text;
  for (int v : std::get<std::vector<int>>(value))
    text += (text.empty() ? "" : ",") + std::to_string(v);
  return text;
}

std::optional<std::string> splitAssignment(std::string_view assignment, std::string &key,
                                           std::string &value) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return "expected KEY=VALUE, got " + quoted(assignment);
  key = std::string(assignment.substr(0, eq));
  value = std::string(assignment.substr(eq + 1));
  return std::nullopt;
}

std::vector<std::string> splitParamList(std::string_view text) {
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') &&
      text.back() == text.front())
    text = text.substr(1, text.size() - 2);
  std::vector<std::string> items;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find_first_of(" \t", start), text.size());
    if (end > start) items.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

AlgorithmParams::AlgorithmParams(const AlgorithmInfo &algorithm, const Topology *topology)
    : topology(topology), algorithm_(&algorithm) {
  for (const ParamSpec &spec : algorithm.params) {
    ParamValue value;
    // Registration proved every default parses (algorithm names against the whole registry).
    if (auto bad = parseParamValue(spec, spec.defaultValue, value, NameCheck::SyntaxOnly))
      throw UndeclaredParameterError("algorithm '" + algorithm.name + "': default of " +
                                     spec.name + ": " + *bad);
    values_.push_back(std::move(value));
  }
}

const std::vector<ParamSpec> &AlgorithmParams::specs() const {
  static const std::vector<ParamSpec> none;
  return algorithm_ ? algorithm_->params : none;
}

std::optional<std::string> AlgorithmParams::set(std::string_view key, std::string_view text) {
  const std::string where = std::string(key) + "=" + std::string(text) + ": ";
  const std::vector<ParamSpec> &all = specs();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].name != key) continue;
    ParamValue value;
    if (auto bad = parseParamValue(all[i], text, value)) return where + *bad;
    values_[i] = std::move(value);
    return std::nullopt;
  }
  std::vector<std::string> taken;
  for (const ParamSpec &spec : all) taken.push_back(spec.name);
  return where + "algorithm '" + (algorithm_ ? algorithm_->name : std::string("(none)")) +
         "' does not take " + std::string(key) + " (its parameters: " + joinedOrNone(taken) + ")";
}

std::optional<std::string> AlgorithmParams::assign(const std::vector<std::string> &assignments) {
  for (const std::string &assignment : assignments) {
    std::string key, value;
    if (auto bad = splitAssignment(assignment, key, value)) return bad;
    if (auto bad = set(key, value)) return bad;
  }
  return std::nullopt;
}

bool AlgorithmParams::declares(std::string_view key) const {
  for (const ParamSpec &spec : specs())
    if (spec.name == key) return true;
  return false;
}

size_t AlgorithmParams::indexOf(std::string_view key) const {
  const std::vector<ParamSpec> &all = specs();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].name == key) return i;
  throw UndeclaredParameterError(
      "algorithm '" + (algorithm_ ? algorithm_->name : std::string("(none)")) +
      "' reads parameter " + std::string(key) +
      ", which it does not declare (add a ParamSpec to its registry entry)");
}

size_t AlgorithmParams::indexOf(std::string_view key, ParamType type) const {
  const size_t i = indexOf(key);
  const ParamType declared = specs()[i].type;
  if (declared != type)
    throw UndeclaredParameterError("algorithm '" + algorithm_->name + "' declares " +
                                   std::string(key) + " as " + std::string(toString(declared)) +
                                   ", but it is read as " + std::string(toString(type)));
  return i;
}

int AlgorithmParams::getInt(std::string_view key) const {
  return std::get<int>(values_[indexOf(key, ParamType::Int)]);
}

bool AlgorithmParams::getBool(std::string_view key) const {
  return std::get<bool>(values_[indexOf(key, ParamType::Bool)]);
}

const std::vector<int> &AlgorithmParams::getIntList(std::string_view key) const {
  return std::get<std::vector<int>>(values_[indexOf(key, ParamType::IntList)]);
}

const std::string &AlgorithmParams::getAlgorithmName(std::string_view key) const {
  return std::get<std::string>(values_[indexOf(key, ParamType::AlgorithmName)]);
}

bool AlgorithmParams::isDefault(std::string_view key) const {
  const size_t i = indexOf(key);
  ParamValue defaultValue;
  parseParamValue(specs()[i], specs()[i].defaultValue, defaultValue, NameCheck::SyntaxOnly);
  return values_[i] == defaultValue;
}

std::string AlgorithmParams::text(std::string_view key) const {
  return formatParamValue(values_[indexOf(key)]);
}

}  // namespace collplan
