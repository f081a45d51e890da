// resolveTopology: command-line topology specs → Topology.
#include "runtime/topology/Resolver.h"

#include "runtime/topology/Generators.h"
#include "runtime/topology/Presets.h"
#include "runtime/topology/TopologyError.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

namespace collplan {
namespace {

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Parses a decimal count made only of digits; nullopt for anything else (signs, spaces, "8k").
std::optional<int> parseCount(const std::string &text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  for (char c : text)
    if (c < '0' || c > '9') return std::nullopt;
  return std::stoi(text);
}

/// Parses "AxBxC" into counts.
std::optional<std::vector<int>> parseShape(const std::string &text) {
  std::vector<int> out;
  size_t start = 0;
  while (true) {
    size_t end = text.find('x', start);
    std::optional<int> value = parseCount(text.substr(start, end - start));
    if (!value) return std::nullopt;
    out.push_back(*value);
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

class SpecParser {
public:
  SpecParser(const std::string &spec, int ranksHint) : spec_(spec), ranksHint_(ranksHint) {
    size_t colon = spec.find(':');
    // "cluster-4", the name of the shipped bundle (plans/bundles/cluster-4), is cluster:4.
    if (colon == std::string::npos && spec.rfind("cluster-", 0) == 0) colon = 7;
    kind_ = spec.substr(0, colon);
    if (colon != std::string::npos) {
      argument_ = spec.substr(colon + 1);
      hasArgument_ = true;
    }
  }

  Topology resolve() {
    if (kind_ == "trn2" || kind_ == "nvswitch-h100" || kind_ == "pcie-7") {
      if (hasArgument_)
        throw error("'" + kind_ + "' is a fixed preset and takes no ':' argument");
      return kind_ == "trn2" ? trn2Preset()
                            : kind_ == "pcie-7" ? pcie7Preset() : nvswitchH100Preset();
    }
    if (kind_ == "cluster") return clusterPreset(countOrHint("nodes", 8));
    if (kind_ == "ring") return ring(countOrHint("devices", 1));
    if (kind_ == "line") return line(countOrHint("devices", 1));
    if (kind_ == "switch") return switchTopology(countOrHint("devices", 1));
    if (kind_ == "full") return fullyConnected(countOrHint("devices", 1));
    if (kind_ == "pcie") return pcieSwitchTree(countOrHint("devices", 1));
    if (kind_ == "hypercube") return hypercube(hypercubeDims());
    if (kind_ == "torus") return torusFromShape();
    if (kind_ == "fattree") return fatTreeFromShape();
    if (kind_ == "local") {
      LocalMachineParams params;
      params.ranks = hasArgument_ ? count("ranks") : std::max(ranksHint_, 0);
      if (hasArgument_ && params.ranks < 1)
        throw error("'local' needs at least 1 rank after ':', got " + argument_);
      return localMachine(params);
    }
    throw error("unknown topology '" + kind_ + "'; accepted: " + acceptedTopologySpecs());
  }

private:
  TopologyError error(const std::string &reason) const {
    return TopologyError("topology spec '" + spec_ + "'", "", reason);
  }

  int count(const std::string &what) const {
    std::optional<int> value = parseCount(argument_);
    if (!value) throw error("expected a number of " + what + " after ':', got '" + argument_ + "'");
    return *value;
  }

  /// The count after ':', else ranksHint / ranksPerUnit when that divides evenly.
  int countOrHint(const std::string &what, int ranksPerUnit) const {
    if (hasArgument_) return count(what);
    if (ranksHint_ > 0 && ranksHint_ % ranksPerUnit == 0) return ranksHint_ / ranksPerUnit;
    throw error(
        "'" + kind_ + "' needs a number of " + what + " (e.g. " + kind_ + ":" +
        (ranksPerUnit == 1 ? "8" : "16") + ")" +
        (ranksHint_ > 0 ? ", and " + std::to_string(ranksHint_) + " ranks do not give one" : ""));
  }

  int hypercubeDims() const {
    if (hasArgument_) return count("dimensions");
    for (int dims = 0; dims < 31; ++dims)
      if (ranksHint_ == (1 << dims)) return dims;
    throw error("'hypercube' needs a number of dimensions (e.g. hypercube:3)" +
                std::string(ranksHint_ > 0 ? ", and " + std::to_string(ranksHint_) +
                                                 " ranks is not a power of two"
                                           : ""));
  }

  Topology torusFromShape() const {
    std::optional<std::vector<int>> shape = parseShape(argument_);
    if (!hasArgument_ || !shape || shape->size() < 2 || shape->size() > 3)
      throw error("expected torus:<x>x<y> or torus:<x>x<y>x<ranks per chip>, e.g. torus:4x4x4");
    return torus2d((*shape)[0], (*shape)[1], shape->size() == 3 ? (*shape)[2] : 1);
  }

  Topology fatTreeFromShape() const {
    std::optional<std::vector<int>> shape = parseShape(argument_);
    if (!hasArgument_ || !shape || shape->size() != 3)
      throw error("expected fattree:<nodes>x<gpus per node>x<nics per node>, e.g. fattree:4x8x8");
    return fatTree((*shape)[0], (*shape)[1], (*shape)[2]);
  }

  const std::string &spec_;
  int ranksHint_;
  std::string kind_, argument_;
  bool hasArgument_ = false;
};

} // namespace

std::string acceptedTopologySpecs() {
  return "a file (*.json), trn2, nvswitch-h100, pcie-7, cluster:<nodes> (or cluster-<nodes>), "
         "ring:<n>, line:<n>, "
         "switch:<n>, full:<n>, hypercube:<dims>, torus:<x>x<y>[x<ranks per chip>], pcie:<n>, "
         "fattree:<nodes>x<gpus>x<nics>, local[:<ranks>]";
}

Topology resolveTopology(const std::string &spec, int ranksHint) {
  if (spec.empty())
    throw TopologyError("topology spec ''", "", "empty; accepted: " + acceptedTopologySpecs());
  if (endsWith(spec, ".json") || spec.find('/') != std::string::npos) return loadTopologyFile(spec);
  return SpecParser(spec, ranksHint).resolve();
}

} // namespace collplan
