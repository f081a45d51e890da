// Memory estimates: the machine's memory, and the refusal of a run that would exceed it.
#include "tuner/measure/MemoryCheck.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <unistd.h>

namespace collplan::measure {
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

void requireRunMemory(const PlanSource &source, const BenchCase &c,
                      const std::vector<SizePoint> &sizes) {
  size_t maxCount = 0;
  for (const SizePoint &s : sizes) maxCount = std::max(maxCount, s.count);
  double buffers = 0;
  for (int r = 0; r < c.ranks; ++r)
    buffers += double(inputBytes(c, r, maxCount)) + double(outputBytes(c, r, maxCount));
  const std::string ranks = std::to_string(c.ranks) + " ranks";
  requireMemory(buffers, "the call buffers of " + ranks + " at the largest size",
                "lower --max-bytes or --ranks");
  requireMemory(buffers + double(source.totalOps()) * double(kPlanBytesPerOp + kPreparedBytesPerOp),
                "the call buffers, plans and prepared programs of " + ranks,
                "lower --max-bytes or --ranks");
}

}  // namespace collplan::measure
