// formatBound: the lower bound as people read it — its terms and what gives each, then a row
// per message size in the units plan-bench prints.
#include "runtime/sim/LowerBound.h"

#include "runtime/core/Text.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace collplan {
namespace {

std::string line(const char *format, double a, const std::string &b) {
  char text[512];
  std::snprintf(text, sizeof text, format, a, b.c_str());
  return text;
}

/// The memory term at the largest size: which device, how many bytes per message byte, how fast.
std::string memoryLine(const CollectiveBound &bound, const Topology &topo, uint64_t largest) {
  if (bound.memory.empty()) return "# memory:    not counted\n";
  int device = -1;
  const double us = bound.memoryUs(largest, &device);
  for (const MemoryTerm &term : bound.memory)
    if (term.device == device) {
      char text[512];
      std::snprintf(text, sizeof text,
                    "# memory:    %.2f GB/s algbw at most at %s (device '%s': %.3g bytes of "
                    "memory traffic per message byte at %.0f GB/s)\n",
                    double(largest) / us / 1e3, formatBytes(largest).c_str(),
                    topo.devices[size_t(device)].name.c_str(), term.touchesPerByte,
                    term.bandwidthGBps(largest));
      return text;
    }
  return "# memory:    no traffic forced\n";
}

std::string termLines(const CollectiveBound &bound, const Topology &topo, uint64_t largest) {
  std::string text = line("# latency:   %.3f us (%s)\n", bound.latencyUs,
                          bound.latencyPath.empty() ? "no transfer needed" : bound.latencyPath);
  if (bound.linkUsPerByte > 0)
    text += line("# links:     %.2f GB/s algbw at most (%s)\n", 1 / bound.linkUsPerByte / 1e3,
                 bound.linkCut);
  else
    text += "# links:     no cut carries data (every rank on one device, or nothing to move)\n";
  text += memoryLine(bound, topo, largest);
  if (bound.reduceUsPerByte > 0)
    text += line("# reduction: %.2f GB/s algbw at most (%s)\n", 1 / bound.reduceUsPerByte / 1e3,
                 "N - 1 combines per element over every device's reduce_gbps");
  if (bound.sampled)
    text += "# (large topology: a subset of the cuts and pairs was tried; still a lower bound)\n";
  return text;
}

}  // namespace

std::string formatBound(const CollectiveBound &bound, const Topology &topo,
                        const std::vector<uint64_t> &sizes) {
  uint64_t largest = 0;
  for (uint64_t s : sizes) largest = std::max(largest, s);
  std::string text = "# lower bound: " + std::string(toString(bound.kind)) + " on " +
                     std::to_string(bound.ranks) + " ranks of topology '" + topo.name + "'" +
                     (needsRoot(bound.kind) ? ", root " + std::to_string(bound.root) : "") +
                     ": no plan runs faster in the simulator's model\n";
  text += termLines(bound, topo, largest);
  char row[256];
  std::snprintf(row, sizeof row, "%14s %12s %12s %12s %12s %12s %12s  %s\n", "size", "bound(us)",
                "latency(us)", "links(us)", "memory(us)", "reduce(us)", "algbw(GB/s)", "limit");
  text += row;
  for (uint64_t bytes : sizes) {
    const double us = bound.timeUs(bytes);
    std::snprintf(row, sizeof row, "%14s %12.3f %12.3f %12.3f %12.3f %12.3f %12.2f  %s\n",
                  formatBytes(bytes).c_str(), us, bound.latencyUs, bound.linkUs(bytes),
                  bound.memoryUs(bytes), bound.reduceUs(bytes),
                  us > 0 ? double(bytes) / us / 1e3 : 0.0,
                  std::string(bound.limit(bytes)).c_str());
    text += row;
  }
  return text;
}

}  // namespace collplan
