// CoreBinding: COLLPLAN_BIND, the affinity mask, and sched_setaffinity for one rank.
#include "runtime/backends/cpu/CoreBinding.h"

#include <sched.h>

#include <cstdlib>
#include <cstring>

namespace collplan {

std::optional<std::string> bindModeFromEnv(BindMode &mode) {
  const char *text = std::getenv("COLLPLAN_BIND");
  if (!text || !std::strcmp(text, "core")) {
    mode = BindMode::Core;
    return std::nullopt;
  }
  if (!std::strcmp(text, "none")) {
    mode = BindMode::None;
    return std::nullopt;
  }
  return std::string("COLLPLAN_BIND must be core or none, got \"") + text + "\"";
}

std::vector<int> allowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

int cpuForRank(BindMode mode, const std::vector<int> &cpus, int rank, int ranks) {
  if (mode != BindMode::Core || cpus.empty() || rank < 0 || rank >= ranks) return -1;
  return cpus[size_t(rank) % cpus.size()];
}

bool ranksOwnTheirCores(BindMode mode, const std::vector<int> &cpus, int ranks) {
  return mode == BindMode::Core && ranks >= 1 && size_t(ranks) <= cpus.size();
}

bool bindCallerToCpu(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

}  // namespace collplan
