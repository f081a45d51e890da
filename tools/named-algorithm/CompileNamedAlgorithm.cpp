// compileAlgorithmRequest through the compile API: parameters parsed by the parser plan-compile
// uses, checked against what the algorithm takes, then compiled, verified and checked.
#include "tools/named-algorithm/NamedAlgorithm.h"

#include "compiler/export/CompileParams.h"
#include "compiler/export/PlanCompiler.h"
#include "compiler/template/TemplateAlgorithms.h"

#include <algorithm>
#include <stdexcept>

namespace collplan::tools {
namespace {

/// Parses every --param into `options`, each key at most once and only keys `algorithm` takes.
void applyParams(const AlgorithmRequest &request, const AlgorithmInfo &algorithm,
                 CompileOptions &options) {
  std::vector<std::string> seen;
  for (const std::string &param : request.params) {
    auto fail = [&](const std::string &reason) {
      throw std::invalid_argument("--param " + param + ": " + reason);
    };
    std::string key;
    if (auto why = applyCompileParam(param, &algorithm, options, &key)) fail(*why);
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      fail(key + " is given twice");
    seen.push_back(key);
  }
}

}  // namespace

bool compilerBuilt() { return true; }

void registerSchedules(AlgorithmRequest &request) {
  std::vector<std::string> names;
  for (const std::string &file : request.schedules) {
    try {
      for (const std::string &name : registerTemplateFile(file)) names.push_back(name);
    } catch (const std::invalid_argument &e) {
      throw std::invalid_argument("--schedule " + std::string(e.what()));
    }
  }
  if (request.algorithm.empty() && names.size() == 1) request.algorithm = names.front();
}

std::string paramKeys() { return compileParamKeys(); }

Plan compileAlgorithmRequest(const AlgorithmRequest &request, const measure::BenchCase &c,
                             const Topology *topology) {
  checkAlgorithmRequest(request);
  const std::string flag = "--algorithm " + request.algorithm;
  const AlgorithmInfo *algorithm = findAlgorithm(request.algorithm);
  if (!algorithm)
    throw std::invalid_argument(flag + ": unknown algorithm '" + request.algorithm +
                                "' (known: " + algorithmNames() + ")");
  if (!algorithm->supports(c.kind))
    throw std::invalid_argument(flag + " does not apply to " + std::string(toString(c.kind)) +
                                " (it implements: " + algorithm->kindNames() + ")");
  CompileOptions options;
  options.algorithm = request.algorithm;
  applyParams(request, *algorithm, options);
  options.topology = topology;
  CollectiveSpec spec;
  spec.kind = c.kind;
  spec.ranks = c.ranks;
  spec.root = c.root;
  if (needsReduceOp(c.kind)) spec.op = c.op;
  std::string error;
  mlir::FailureOr<CompiledPlan> compiled = compileCollective(spec, options, error);
  if (mlir::failed(compiled)) {
    std::string typed = flag;  // the values the compiler rejected, as the user typed them
    for (const std::string &param : request.params) typed += " --param " + param;
    throw std::invalid_argument(typed + ": " + error);
  }
  return std::move(compiled->plan);
}

}  // namespace collplan::tools
