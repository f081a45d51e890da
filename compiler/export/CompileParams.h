// The compile parameters as users type them (KEY=VALUE), generated from the algorithm registry:
// plan-compile's flags and --list, and the --param of plan-view, plan-bench and the Python module.
#pragma once

#include "compiler/export/PlanCompiler.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collplan {

/// One key users can type: `slices`, or a parameter that registered algorithms declare (a key has
/// one type in every algorithm that declares it).
struct CompileParam {
  const ParamSpec *spec = nullptr;  ///< slicesParamSpec(), or the first declaration
  /// The algorithms that declare it (empty for slices: every algorithm with data takes it).
  std::vector<const AlgorithmInfo *> algorithms;
  /// A value-less flag on plan-compile's command line (means "true").
  bool isSwitch() const { return spec->type == ParamType::Bool; }
  std::string key() const { return spec->name; }
  /// One line for --help: "rings over disjoint link sets (ring; integer 1..1024)".
  std::string help() const;
};

/// Every key: slices, then the registry's parameters by name.
std::vector<CompileParam> compileParams();
/// "slices, bidirectional, channels, ..." for error messages.
std::string compileParamKeys();

/// The keys `algorithm` takes: `slices` for collectives with data, then its specs' names, so a
/// parameter is never silently ignored.
std::vector<std::string> compileParamsTakenBy(const AlgorithmInfo &algorithm);

/// Adds one "KEY=VALUE" to `options` (slices to `options.slices`, the others to
/// `options.params`), for `algorithm` (null: not known yet, e.g. a file's collective names it;
/// the lowering checks it then). Returns why it is refused: no '=', an unknown key (the valid
/// ones listed), a key the algorithm does not take (the ones it takes listed), or a value its spec
/// refuses. `key` receives the key part when given.
std::optional<std::string> applyCompileParam(std::string_view assignment,
                                             const AlgorithmInfo *algorithm,
                                             CompileOptions &options, std::string *key = nullptr);

/// plan-compile --list: per algorithm one line "name<TAB>kinds<TAB>summary", then indented
/// lines: its origin, each parameter (key=default, type and range, help), what plan-tune
/// varies, its topology needs and the parameters it is shown with when the defaults need a
/// topology.
std::string algorithmListing();

}  // namespace collplan
