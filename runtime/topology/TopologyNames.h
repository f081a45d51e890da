// Names of routing policies and features as they appear in topology files and specs.
#pragma once

#include "runtime/topology/Topology.h"

#include <optional>
#include <string>
#include <string_view>

namespace collplan {

/// "shortest_path" or "dimension_order".
std::string_view toString(Routing routing);
std::optional<Routing> parseRouting(std::string_view name);
/// "shortest_path, dimension_order", for error messages.
std::string routingNames();

/// Feature names: "duplication", "remote_reads", "multicast".
inline constexpr const char *kFeatureNames[] = {"duplication", "remote_reads", "multicast"};
/// The flag of `features` that `name` names, or nullptr for an unknown name.
bool *featureFlag(Features &features, std::string_view name);
bool featureEnabled(const Features &features, std::string_view name);
/// "duplication, remote_reads, multicast", for error messages.
std::string featureNames();

} // namespace collplan
