// Typed algorithm parameters: the spec an algorithm declares for each parameter, and the values
// of one algorithm's parameters (its defaults, then KEY=VALUE texts parsed and range-checked).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace collplan {

struct AlgorithmInfo;
struct Topology;

/// What a parameter's value is.
enum class ParamType { Int, Bool, IntList, AlgorithmName };

/// "integer", "true|false", "comma-separated integers", "algorithm name".
std::string_view toString(ParamType type);

/// Counts whose schedules grow with the value (slices, channels, pipeline chunks): far above any
/// useful setting, low enough that compiling cannot run for minutes or exhaust memory.
inline constexpr int kMaxCount = 1024;
/// Rank-sized values (fan-out, group sizes, rank numbers): the tools' largest rank count.
inline constexpr int kMaxRanks = 65536;

/// One parameter of an algorithm, declared once in its registry entry: the pass options, the
/// tools' flags and --list, the plan's `params` record and the tuner's labels all read it.
struct ParamSpec {
  std::string name;          ///< the KEY of KEY=VALUE, e.g. "channels"
  ParamType type = ParamType::Int;
  std::string defaultValue;  ///< as text: "1", "false", "" (an empty list), "ring"
  int min = 0;               ///< Int, and every IntList element: the smallest valid value
  int max = kMaxCount;       ///< and the largest
  std::string help;          ///< one line: what the parameter does
  /// The tuner's label of a value: "ch" labels channels=2 "ch2"; a Bool's label when true
  /// ("bidir"). Empty: "name=value".
  std::string label;

  /// What a value looks like, for help and --list: "integer 1..1024", "true|false", ...
  std::string syntax() const;
};

/// Spec builders for registry entries.
ParamSpec intParam(std::string name, int defaultValue, int min, int max, std::string help,
                   std::string label = "");
ParamSpec boolParam(std::string name, bool defaultValue, std::string help,
                    std::string label = "");
/// An integer list whose default is empty (the algorithm's own choice).
ParamSpec intListParam(std::string name, int min, int max, std::string help);
/// A registered algorithm's name (a stage of a composed algorithm).
ParamSpec algorithmParam(std::string name, std::string defaultValue, std::string help);

/// `slices`: pipelining slices per chunk, applied by coll-slice to every schedule with data. It
/// is no algorithm's own parameter: every algorithm of a collective with data takes it.
const ParamSpec &slicesParamSpec();

/// A parameter's value; the alternative is fixed by the spec's type.
using ParamValue = std::variant<int, bool, std::vector<int>, std::string>;

/// How strictly an AlgorithmName value is checked: against the registry, or only its syntax
/// (while the built-in registry is being assembled).
enum class NameCheck { Registry, SyntaxOnly };

/// Parses `text` as a value of `spec` into `out`. Returns why it is not one, quoting the text:
/// `"two" is not an integer`, `"0" is below the minimum of 1`, `"tree" is not a registered
/// algorithm (known: ...)`.
std::optional<std::string> parseParamValue(const ParamSpec &spec, std::string_view text,
                                           ParamValue &out, NameCheck names = NameCheck::Registry);
/// The text of a value, as parseParamValue reads it: "2", "true", "0,2,1,3", "ring".
std::string formatParamValue(const ParamValue &value);

/// Splits "KEY=VALUE" at its first '='; returns why it is not an assignment, or nothing.
std::optional<std::string> splitAssignment(std::string_view assignment, std::string &key,
                                           std::string &value);
/// The space-separated assignments of one string, e.g. coll-lower's
/// `params='channels=2 order=0,2,1,3'` (surrounding quotes, if left, are dropped).
std::vector<std::string> splitParamList(std::string_view text);

/// Thrown when a lowering reads a parameter its algorithm does not declare, or reads it as
/// another type: a bug in the lowering (or an AlgorithmParams built for another algorithm).
class UndeclaredParameterError : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

/// The parameter values of one algorithm: every spec's default, overridden by `set`. Lowerings
/// read them through the typed accessors, which throw UndeclaredParameterError for a name the
/// algorithm does not declare. Defaults come only from the specs, so every entry point lowers
/// the same IR the same way.
class AlgorithmParams {
public:
  /// No algorithm: holds no parameter. buildSchedule reads it as the algorithm's defaults.
  AlgorithmParams() = default;
  /// The defaults of `algorithm`'s specs.
  explicit AlgorithmParams(const AlgorithmInfo &algorithm, const Topology *topology = nullptr);

  /// Parses and range-checks `text` as parameter `key`. Returns why it is refused, naming the
  /// key, the value and the reason ("channels=0: \"0\" is below the minimum of 1", "fanout=4:
  /// algorithm 'ring' does not take fanout (its parameters: channels, bidirectional,
  /// order)").
  std::optional<std::string> set(std::string_view key, std::string_view text);
  /// `set` for each "KEY=VALUE"; the first refusal, or nothing.
  std::optional<std::string> assign(const std::vector<std::string> &assignments);

  bool declares(std::string_view key) const;
  int getInt(std::string_view key) const;
  bool getBool(std::string_view key) const;
  const std::vector<int> &getIntList(std::string_view key) const;
  const std::string &getAlgorithmName(std::string_view key) const;
  /// True when `key` holds its spec's default.
  bool isDefault(std::string_view key) const;
  /// The value of `key` as text (formatParamValue).
  std::string text(std::string_view key) const;

  /// The algorithm these values belong to (null for a default-constructed object).
  const AlgorithmInfo *algorithm() const { return algorithm_; }
  /// Its specs, in declaration order (empty without an algorithm).
  const std::vector<ParamSpec> &specs() const;
  /// The value of the i-th spec.
  const ParamValue &valueAt(size_t i) const { return values_.at(i); }

  /// Where topology-aware defaults come from (optional; not a parameter: never in `specs`).
  const Topology *topology = nullptr;

private:
  /// The index of `key` among the specs; throws UndeclaredParameterError when it is not one.
  size_t indexOf(std::string_view key) const;
  /// The same, checked to be declared with `type`.
  size_t indexOf(std::string_view key, ParamType type) const;

  const AlgorithmInfo *algorithm_ = nullptr;
  std::vector<ParamValue> values_;
};

}  // namespace collplan
