// The link term of the lower bound (LowerBound.h): cuts of the link graph found by max-flow.
#pragma once

#include "runtime/core/Collective.h"
#include "runtime/topology/Topology.h"

#include <string>

namespace collplan {

/// Above this many devices with ranks, the sinks (and pairs) tried are an evenly spaced subset:
/// every cut tried is a real cut, so the bound stays a bound, only possibly a looser one.
inline constexpr int kMaxExactBoundDevices = 128;

/// Links: time >= usPerByte × M, from the cut described by `cut`.
struct LinkBound {
  double usPerByte = 0;
  std::string cut;
  bool sampled = false;
};

/// The link bound of `kind` on every rank of `topo` (rooted kinds from `root`); the topology's
/// links must have positive, finite bandwidths (LowerBound.cpp checks them first).
LinkBound linkBound(const Topology &topo, CollectiveKind kind, int root);

}  // namespace collplan
