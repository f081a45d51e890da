// The --algorithm / --param flags and the checks that need no compiler, shared by both builds.
#include "tools/named-algorithm/NamedAlgorithm.h"

#include <CLI/CLI.hpp>

#include <stdexcept>

namespace collplan::tools {

void addAlgorithmOptions(CLI::App &app, AlgorithmRequest &request,
                         const std::string &defaultMeaning) {
  app.add_option("--algorithm", request.algorithm,
                 "A registered algorithm compiled on the fly (see plan-compile --list), or "
                 "\"default\": " + defaultMeaning);
  app.add_option("--param", request.params,
                 "KEY=VALUE parameter of --algorithm NAME, repeatable (plan-compile's parameter "
                 "flags: " + paramKeys() + ")")
      ->allow_extra_args(false);
  app.add_option("--schedule", request.schedules,
                 "A .mlir file of schedule templates (coll.template), repeatable: each becomes "
                 "an algorithm named by its symbol, for --algorithm NAME (with one template and "
                 "no --algorithm, that one)")
      ->allow_extra_args(false);
}

void checkAlgorithmRequest(const AlgorithmRequest &request) {
  if (!request.params.empty() && !request.named())
    throw std::invalid_argument(
        "--param " + request.params.front() +
        ": parameters need --algorithm NAME (a registered algorithm, see plan-compile --list); "
        "plan files, bundles and the built-in plans (--algorithm default) take none");
  if (request.named() && !compilerBuilt())
    throw std::invalid_argument(
        "--algorithm " + request.algorithm +
        ": named algorithms need plan-compile: compile to a plan file first, then use it with "
        "--plan FILE (this build has no compiler; only --algorithm default works here: the "
        "runtime's built-in plans)");
}

std::string describe(const AlgorithmRequest &request) {
  std::string text = request.algorithm;
  for (const std::string &param : request.params) text += " " + param;
  return text;
}

measure::BenchCompiler benchCompiler(const AlgorithmRequest &request) {
  return measure::BenchCompiler{
      describe(request), [request] { checkAlgorithmRequest(request); },
      [request](const measure::BenchCase &c, const Topology *topology) {
        return compileAlgorithmRequest(request, c, topology);
      }};
}

}  // namespace collplan::tools
