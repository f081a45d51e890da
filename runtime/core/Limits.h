// Limits: the largest jobs and messages collplan plans, compiles and loads, in one place.
#pragma once

#include <cstdint>
#include <string>

namespace collplan {

/// Ranks of one collective: 65 536. Level-2 schedules and plans grow with ranks × units, so a
/// mistyped count (1e9) is refused at once instead of exhausting memory.
constexpr int64_t kMaxRanks = int64_t(1) << 16;
/// Pipelining slices per chunk: 1024.
constexpr int64_t kMaxSlices = int64_t(1) << 10;
/// Units of one message (chunks × slices; a plan's `units` and `scratch_units`): 2^24.
constexpr int64_t kMaxUnits = int64_t(1) << 24;

/// "ranks 1000000000 is above the limit of 65536", or "" when `value` <= `limit`.
inline std::string aboveLimit(const std::string &what, int64_t value, int64_t limit) {
  if (value <= limit) return "";
  return what + " " + std::to_string(value) + " is above the limit of " + std::to_string(limit);
}

}  // namespace collplan
