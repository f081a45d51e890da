// resolveTopology: turns a command-line topology spec (file, preset, generator, local) into a
// Topology.
#pragma once

#include "runtime/topology/Topology.h"

#include <string>

namespace collplan {

/// Resolves `spec`:
///   - a path (ends in .json or contains '/'): loadTopologyFile;
///   - a preset: trn2, nvswitch-h100, pcie-7, cluster:<nodes>;
///   - a generator: ring:<n>, line:<n>, switch:<n>, full:<n>, hypercube:<dims>,
///     torus:<x>x<y>[x<ranks per chip>], pcie:<n>, fattree:<nodes>x<gpus>x<nics>;
///   - local or local:<ranks>: this machine via hwloc.
/// `ranksHint` (> 0) only fills in a missing count: ring, line, switch, full, pcie and local take
/// it as their rank count, hypercube as 2^dims, cluster as 8 ranks per node. It never changes a
/// topology that has its own size, so callers must compare `numRanks()` with what they need.
/// Throws TopologyError (naming the spec and listing what is accepted) on anything else.
Topology resolveTopology(const std::string &spec, int ranksHint = 0);

/// One line listing the accepted specs, for --help texts and error messages.
std::string acceptedTopologySpecs();

} // namespace collplan
