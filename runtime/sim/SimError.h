// SimError: the one exception the simulator throws on a plan/topology pair it cannot simulate.
#pragma once

#include <stdexcept>
#include <string>

namespace collplan {

/// A plan that cannot be simulated on a topology: rank-count mismatch, a feature the topology
/// lacks, a missing route, a zero or non-finite bandwidth, an unmatched transfer, or a deadlock.
/// `what()` reads "simulate: <reason>" so a tool can print it as is and exit non-zero.
class SimError : public std::runtime_error {
public:
  explicit SimError(const std::string &reason)
      : std::runtime_error("simulate: " + reason), reason_(reason) {}
  /// The reason without the "simulate: " prefix.
  const std::string &reason() const { return reason_; }

private:
  std::string reason_;
};

}  // namespace collplan
