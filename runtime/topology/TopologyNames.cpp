// Names of routing policies and features as they appear in topology files and specs.
#include "runtime/topology/TopologyNames.h"

namespace collplan {

std::string_view toString(Routing routing) {
  switch (routing) {
  case Routing::ShortestPath: return "shortest_path";
  case Routing::DimensionOrder: return "dimension_order";
  }
  return "unknown";
}

std::optional<Routing> parseRouting(std::string_view name) {
  if (name == "shortest_path") return Routing::ShortestPath;
  if (name == "dimension_order") return Routing::DimensionOrder;
  return std::nullopt;
}

std::string routingNames() { return "shortest_path, dimension_order"; }

bool *featureFlag(Features &features, std::string_view name) {
  if (name == "duplication") return &features.duplication;
  if (name == "remote_reads") return &features.remoteReads;
  if (name == "multicast") return &features.multicast;
  return nullptr;
}

bool featureEnabled(const Features &features, std::string_view name) {
  Features copy = features;
  const bool *flag = featureFlag(copy, name);
  return flag && *flag;
}

std::string featureNames() {
  std::string out;
  for (const char *name : kFeatureNames)
    out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

} // namespace collplan
