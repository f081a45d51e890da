// Shared helpers of the topology generators (internal to runtime/topology).
#pragma once

#include "runtime/core/Limits.h"

#include "runtime/topology/Generators.h"

#include <string>

namespace collplan {

/// Generators refuse to build more ranks than a plan may have (kMaxRanks, 65 536): a guard
/// against typos like ring:10000000, and hypercube:20 ran for minutes before anything failed.
inline constexpr long long kMaxGeneratedRanks = kMaxRanks;

/// Throws TopologyError unless `value >= minimum`.
void checkCount(const std::string &origin, const std::string &what, long long value,
                long long minimum);
/// Throws TopologyError unless `value <= maximum`.
void checkAtMost(const std::string &origin, const std::string &what, long long value,
                 long long maximum);
/// `numDevices` devices named d0.. with `params.ranksPerDevice` consecutive ranks each, no links.
Topology baseTopology(const std::string &name, int numDevices, const GeneratorParams &params,
                      const std::string &origin);
/// Appends a link between vertices `a` and `b`; returns its index.
int addLink(Topology &topo, VertexId a, VertexId b, const LinkSpec &spec, int dim);
/// Validates (a generator bug is a TopologyError, not a bad plan later) and finalizes.
Topology finish(Topology topo, const std::string &origin);

} // namespace collplan
