// The exception every topology loader, validator, generator and resolver throws on bad input.
#pragma once

#include <stdexcept>
#include <string>

namespace collplan {

/// A bad topology (file, JSON, generator arguments or spec). `what()` reads
/// "<origin>: <field>: <reason>" (the field part is left out where no field applies), so a
/// command-line tool can print it as is and exit non-zero.
class TopologyError : public std::runtime_error {
public:
  TopologyError(std::string origin, std::string field, std::string reason);

  /// The file, spec or generator the topology came from.
  const std::string &origin() const { return origin_; }
  /// The JSON field path, e.g. `links[3].bandwidth_gbps`; empty where no field applies.
  const std::string &field() const { return field_; }
  /// Why the input was rejected.
  const std::string &reason() const { return reason_; }

private:
  std::string origin_, field_, reason_;
};

} // namespace collplan
