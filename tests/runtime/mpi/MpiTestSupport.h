// What the mpi backend's tests ask of MPI_COMM_WORLD: its size, this process's rank, and
// bundles made for the job's backend and topology.
#pragma once

#include "runtime/backends/Backend.h"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <unistd.h>

namespace collplan::test {

inline int worldSize() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

inline int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/// Writes the test bundle `source` (a path under the source tree) as tuned for `backend` on the
/// job's topology (collective: every rank calls it alike) and returns the file's path, which
/// names `tag` and this process.
inline std::string bundleForJob(const std::string &source, const std::string &backend,
                                const std::string &tag) {
  nlohmann::json bundle = nlohmann::json::parse(std::ifstream(source));
  bundle["backend"] = backend;
  bundle["topology_fingerprint"] = requireBackend("mpi").launchTopology()->fingerprint();
  const std::string path =
      "/tmp/collplan-mpi-" + tag + "-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << bundle.dump();
  return path;
}

}  // namespace collplan::test
