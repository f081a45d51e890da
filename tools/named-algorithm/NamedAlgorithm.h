// --algorithm NAME [--param KEY=VALUE ...]: a registered algorithm compiled on the fly for what
// plan-view draws or plan-bench runs. MLIR-free, so both tools use it in every build.
#pragma once

#include "runtime/plan/Plan.h"
#include "tuner/measure/BenchCase.h"
#include "tuner/measure/BenchRequest.h"

#include <string>
#include <vector>

namespace CLI {
class App;
}
namespace collplan {
struct Topology;
}

namespace collplan::tools {

/// What the user asked for with --algorithm and --param.
struct AlgorithmRequest {
  std::string algorithm;            ///< "" or "default" (the built-in plans), or a registered name
  std::vector<std::string> params;  ///< each --param as typed: "KEY=VALUE"
  std::vector<std::string> schedules;  ///< each --schedule FILE: templates to register
  /// True when `algorithm` names an algorithm to compile rather than the built-in plans.
  bool named() const { return !algorithm.empty() && algorithm != "default"; }
};

/// Adds --algorithm, the repeatable --param KEY=VALUE (one assignment per flag) and the
/// repeatable --schedule FILE to `app`; `defaultMeaning` says what --algorithm default is in
/// this tool.
void addAlgorithmOptions(CLI::App &app, AlgorithmRequest &request,
                         const std::string &defaultMeaning);

/// Registers the templates of every --schedule file as algorithms (plan-compile --list shows
/// them); with no --algorithm and one template in all, --algorithm becomes that template. Throws
/// std::invalid_argument naming --schedule, the file and the reason (and in the runtime-only
/// build, which cannot instantiate templates).
void registerSchedules(AlgorithmRequest &request);

/// False in the runtime-only build (COLLPLAN_BUILD_COMPILER=OFF), which links no MLIR.
bool compilerBuilt();

/// "slices, channels, ...": the --param keys, for --help (a note in the runtime-only build).
std::string paramKeys();

/// Checks the flags before anything is loaded: --param needs --algorithm NAME, and a named
/// algorithm needs a build with the compiler. Throws std::invalid_argument.
void checkAlgorithmRequest(const AlgorithmRequest &request);

/// Compiles the named algorithm with its parameters for case `c` (collective, ranks, op, root),
/// topology-aware when `topology` is given; verified and checked as plan-compile does. Throws
/// std::invalid_argument naming --algorithm or --param and the reason: an unknown algorithm, one
/// that does not implement the collective, an unknown key (the valid ones listed), a bad value, a
/// key given twice or not taken by the algorithm, or the compiler's rejection of the values.
Plan compileAlgorithmRequest(const AlgorithmRequest &request, const measure::BenchCase &c,
                             const Topology *topology);

/// "ring channels=2 bidirectional=true": the algorithm and its parameters, for labels.
std::string describe(const AlgorithmRequest &request);

/// The request as runBenchRequest's compiler: checkAlgorithmRequest, compileAlgorithmRequest
/// and describe (runBenchRequest compiles only when the request names an algorithm).
measure::BenchCompiler benchCompiler(const AlgorithmRequest &request);

}  // namespace collplan::tools
