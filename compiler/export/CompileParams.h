// The compile parameters as users type them (KEY=VALUE): plan-compile's flags and the --param
// of plan-view and plan-bench share this one parser and this one list of keys.
#pragma once

#include "compiler/export/PlanCompiler.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collplan {

/// One parameter of CompileOptions in text form.
struct CompileParam {
  std::string key;     ///< "channels", "ranks-per-device": plan-compile's flag without "--"
  std::string syntax;  ///< what a value looks like, for help and errors: "integer", ...
  std::string help;    ///< one line: what the parameter does
  bool isSwitch = false;  ///< a value-less flag on plan-compile's command line (means "true")
  /// Parses `text` into `options`; returns why `text` is not a valid value, or nothing.
  std::function<std::optional<std::string>(CompileOptions &options, std::string_view text)> set;
};

/// Every parameter, in plan-compile's flag order.
const std::vector<CompileParam> &compileParams();
const CompileParam *findCompileParam(std::string_view key);
/// "slices, channels, ..." for error messages.
std::string compileParamKeys();

/// Parses one "KEY=VALUE" into `options`. Returns why it is not valid (no '=', unknown key with
/// the valid ones listed, or a bad value), or nothing. `key` receives the key part when given.
std::optional<std::string> applyCompileParam(std::string_view assignment,
                                             CompileOptions &options,
                                             std::string *key = nullptr);

/// The keys `algorithm` reads (its lowering ignores the others): `slices` for collectives with
/// data, then its registry entry's `params`, so a parameter is never silently ignored.
std::vector<std::string> compileParamsTakenBy(const AlgorithmInfo &algorithm);

}  // namespace collplan
