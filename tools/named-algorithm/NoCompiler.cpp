// The runtime-only build: named algorithms cannot be compiled here, and the request says so.
#include "tools/named-algorithm/NamedAlgorithm.h"

#include <stdexcept>

namespace collplan::tools {

bool compilerBuilt() { return false; }

void registerSchedules(AlgorithmRequest &request) {
  if (!request.schedules.empty())
    throw std::invalid_argument("--schedule " + request.schedules.front() +
                                ": schedule templates need the compiler, which this build "
                                "lacks (compile the template with plan-compile to a plan file, "
                                "then use --plan FILE)");
}

std::string paramKeys() { return "none in this build, which has no compiler"; }

Plan compileAlgorithmRequest(const AlgorithmRequest &request, const measure::BenchCase &,
                             const Topology *) {
  checkAlgorithmRequest(request);  // throws the "this build has no compiler" error
  throw std::invalid_argument("--algorithm " + request.algorithm + ": not a named algorithm");
}

}  // namespace collplan::tools
