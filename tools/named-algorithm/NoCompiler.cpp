// The runtime-only build: named algorithms cannot be compiled here, and the request says so.
#include "tools/named-algorithm/NamedAlgorithm.h"

#include <stdexcept>

namespace collplan::tools {

bool compilerBuilt() { return false; }

std::string paramKeys() { return "none in this build, which has no compiler"; }

Plan compileAlgorithmRequest(const AlgorithmRequest &request, const bench::BenchCase &,
                             const Topology *) {
  checkAlgorithmRequest(request);  // throws the "this build has no compiler" error
  throw std::invalid_argument("--algorithm " + request.algorithm + ": not a named algorithm");
}

}  // namespace collplan::tools
