// libFuzzer target: topology files through loadTopologyFile, then round trip and routes.
#include "ScratchFile.h"

#include "runtime/topology/Topology.h"
#include "runtime/topology/TopologyError.h"

#include <algorithm>

using namespace collplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = fuzz::writeScratchFile(data, size);
  Topology topo;
  try {
    topo = loadTopologyFile(path);
  } catch (const TopologyError &) {
    return 0;
  }

  // A loaded topology must read back unchanged from what topologyToJson writes of it.
  const nlohmann::json written = topologyToJson(topo);
  try {
    if (topologyToJson(topologyFromJson(written, "round trip")) != written)
      fuzz::fail("the round trip of a loaded topology changed it");
  } catch (const TopologyError &e) {
    fuzz::fail(std::string("a loaded topology does not read back after topologyToJson: ") +
               e.what());
  }
  (void)topo.fingerprint();

  // Every tool routes over a loaded topology; a missing route is a TopologyError, nothing worse.
  const int ranks = std::min(topo.numRanks(), 32);
  for (int rank = 0; rank < ranks; ++rank) {
    try {
      (void)topo.route(0, rank);
      (void)topo.route(rank, 0);
    } catch (const TopologyError &) {
    }
  }
  return 0;
}
