// Memory estimates: the machine's memory, and the refusal of a run that would exceed it.
#include "tuner/bench/MemoryCheck.h"

#include <cstdio>
#include <stdexcept>
#include <unistd.h>

namespace collplan::bench {
namespace {

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / double(1 << 30));
  return text;
}

}  // namespace

double physicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && pageSize > 0 ? double(pages) * double(pageSize) : 0;
}

void requireMemory(double bytes, const std::string &what, const std::string &remedy) {
  const double have = physicalMemoryBytes();
  if (have > 0 && bytes > have)
    throw std::invalid_argument(what + " need " + gib(bytes) + ", more than this machine's " +
                                gib(have) + " of memory: " + remedy);
}

}  // namespace collplan::bench
