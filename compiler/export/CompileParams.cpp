// The KEY=VALUE parameter table: value parsers, the keys, and which algorithms read which keys.
#include "compiler/export/CompileParams.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace collplan {
namespace {

using Setter = std::function<std::optional<std::string>(CompileOptions &, std::string_view)>;

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

/// The whole of `text` as an integer (64-bit, so callers can say "above the limit" for values
/// that do not fit an int), or nothing.
std::optional<long long> parseInt(std::string_view text) {
  long long value = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

/// Counts whose schedules grow with the value (slices, channels, pipeline chunks): far above any
/// useful setting, and low enough that compiling cannot run for minutes or exhaust memory.
constexpr int kMaxCount = 1024;
/// Rank-sized values (fan-out, group sizes): the tools' largest rank count.
constexpr int kMaxRanks = 4096;

/// An integer field of the options, at most `max` (lower bounds are the compiler's checks).
Setter intField(int &(*field)(CompileOptions &), int max) {
  return [field, max](CompileOptions &o, std::string_view text) -> std::optional<std::string> {
    const std::optional<long long> v = parseInt(text);
    if (!v) return quoted(text) + " is not an integer";
    if (*v > max) return quoted(text) + " is above the limit of " + std::to_string(max);
    if (*v < std::numeric_limits<int>::min()) return quoted(text) + " is out of range";
    field(o) = int(*v);
    return std::nullopt;
  };
}

/// A comma-separated integer list field, e.g. a ring order "0,2,1,3".
Setter intListField(std::vector<int> &(*field)(CompileOptions &)) {
  return [field](CompileOptions &o, std::string_view text) -> std::optional<std::string> {
    std::vector<int> values;
    for (size_t start = 0;;) {
      const size_t comma = text.find(',', start);
      const std::optional<long long> v = parseInt(text.substr(start, comma - start));
      if (!v || *v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max())
        return quoted(text) + " is not a comma-separated list of integers (e.g. 0,2,1,3)";
      values.push_back(int(*v));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    field(o) = values;
    return std::nullopt;
  };
}

std::optional<std::string> setBidirectional(CompileOptions &o, std::string_view text) {
  if (text == "true" || text == "1") o.params.bidirectional = true;
  else if (text == "false" || text == "0") o.params.bidirectional = false;
  else return quoted(text) + " is not true or false";
  return std::nullopt;
}

std::optional<std::string> setInter(CompileOptions &o, std::string_view text) {
  if (text.empty()) return std::string("the inter-node algorithm name is empty");
  o.params.inter = std::string(text);
  return std::nullopt;
}

std::vector<CompileParam> makeParams() {
  return {
      {"slices", "integer", "pipelining slices per chunk (every algorithm)", false,
       intField([](CompileOptions &o) -> int & { return o.slices; }, kMaxCount)},
      {"channels", "integer", "ring: rings over disjoint link sets", false,
       intField([](CompileOptions &o) -> int & { return o.params.channels; }, kMaxCount)},
      {"bidirectional", "true|false", "ring: half of every block goes each way", true,
       setBidirectional},
      {"order", "comma-separated ranks", "ring/line order, or KangaRing device order", false,
       intListField([](CompileOptions &o) -> std::vector<int> & { return o.params.order; })},
      {"fanout", "integer", "pipelined tree: children per node", false,
       intField([](CompileOptions &o) -> int & { return o.params.fanout; }, kMaxRanks)},
      {"pipeline", "integer", "pipelined / double binary tree: chunks streamed", false,
       intField([](CompileOptions &o) -> int & { return o.params.pipeline; }, kMaxCount)},
      {"ranks-per-device", "integer", "KangaRing, Mesh, RDH: ranks per device", false,
       intField([](CompileOptions &o) -> int & { return o.params.ranksPerDevice; }, kMaxRanks)},
      {"dims", "comma-separated extents", "RDH: hypercube/torus extents over devices", false,
       intListField([](CompileOptions &o) -> std::vector<int> & { return o.params.dims; })},
      {"ranks-per-node", "integer", "hierarchical: ranks per node (0: the topology's)", false,
       intField([](CompileOptions &o) -> int & { return o.params.ranksPerNode; }, kMaxRanks)},
      {"inter", "ring|recursive-doubling", "hierarchical: inter-node algorithm", false,
       setInter},
  };
}

}  // namespace

const std::vector<CompileParam> &compileParams() {
  static const std::vector<CompileParam> params = makeParams();
  return params;
}

const CompileParam *findCompileParam(std::string_view key) {
  for (const CompileParam &p : compileParams())
    if (p.key == key) return &p;
  return nullptr;
}

std::string compileParamKeys() {
  std::string keys;
  for (const CompileParam &p : compileParams()) keys += (keys.empty() ? "" : ", ") + p.key;
  return keys;
}

std::optional<std::string> applyCompileParam(std::string_view assignment, CompileOptions &options,
                                             std::string *key) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos)
    return "expected KEY=VALUE (keys: " + compileParamKeys() + ")";
  const std::string_view name = assignment.substr(0, eq);
  if (key) *key = std::string(name);
  const CompileParam *param = findCompileParam(name);
  if (!param) return "unknown key " + quoted(name) + " (valid keys: " + compileParamKeys() + ")";
  return param->set(options, assignment.substr(eq + 1));
}

std::vector<std::string> compileParamsTakenBy(const AlgorithmInfo &algorithm) {
  // slices is compileSchedule's: it applies to every schedule but a barrier's tokens.
  const bool hasData = std::any_of(algorithm.kinds.begin(), algorithm.kinds.end(),
                                   [](CollectiveKind k) { return k != CollectiveKind::Barrier; });
  std::vector<std::string> taken;
  if (hasData) taken.push_back("slices");
  taken.insert(taken.end(), algorithm.params.begin(), algorithm.params.end());
  return taken;
}

}  // namespace collplan
