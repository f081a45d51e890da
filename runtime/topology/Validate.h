// Semantic checks of a topology (rank partition, names, bandwidths, coordinates, connectivity).
#pragma once

#include "runtime/topology/Topology.h"

#include <string>

namespace collplan {

/// Checks everything the JSON types cannot: ranks 0..N-1 each on exactly one device, unique
/// non-empty vertex names, positive bandwidths, non-negative latencies, link endpoints in range
/// and distinct, torus coordinates consistent with `dims`, links needed by dimension-order
/// routing present, every device with ranks reachable from every other. Throws TopologyError
/// whose field is the JSON path of the offending value (struct indices equal JSON indices).
void validateTopology(const Topology &topo, const std::string &origin);

/// The part of validateTopology that `Topology::finalize` needs: ranks form 0..N-1, each on
/// exactly one device. Throws TopologyError.
void checkRankPartition(const Topology &topo, const std::string &origin);

} // namespace collplan
