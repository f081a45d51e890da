// The exception every topology loader, validator, generator and resolver throws on bad input.
#include "runtime/topology/TopologyError.h"

namespace collplan {

static std::string formatTopologyError(const std::string &origin, const std::string &field,
                                       const std::string &reason) {
  std::string out = origin.empty() ? std::string("topology") : origin;
  if (!field.empty()) out += ": " + field;
  return out + ": " + reason;
}

TopologyError::TopologyError(std::string origin, std::string field, std::string reason)
    : std::runtime_error(formatTopologyError(origin, field, reason)), origin_(std::move(origin)),
      field_(std::move(field)), reason_(std::move(reason)) {}

} // namespace collplan
