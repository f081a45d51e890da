// UnitSpace: where a unit of one rank's buffers lives, in a call with separate buffers or in an
// in-place call (in and out one buffer), for the verifier's checks.
#pragma once

#include "runtime/core/Collective.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanValidate.h"

#include <cstdint>
#include <string>
#include <utility>

namespace collplan {

/// The storage of rank `rank`'s units. With separate buffers every (buffer, unit) is its own
/// cell. In an in-place call (only allowed for plans marked inplace_safe) `in` starts
/// inPlaceBlockShift × units-per-block units into `out`, as the executor lays it out, so an
/// `in` unit inside `out` is that `out` unit; `tmp` always stands apart.
class UnitSpace {
public:
  UnitSpace(const Plan &plan, int rank, bool inPlace)
      : outUnits_(bufferUnits(plan, BufferKind::Out, rank)), inPlace_(inPlace) {
    const int blocks = messageBlocks(plan.collective, plan.ranks);
    const int64_t unitsPerBlock = blocks > 0 ? int64_t(plan.units / uint32_t(blocks)) : 0;
    inShift_ = inPlaceBlockShift(plan.collective, plan.root, rank) * unitsPerBlock;
  }

  bool inPlace() const { return inPlace_; }

  /// The cell `unit` of `buf` is stored in: itself, or for an `in` unit aliasing `out`, the
  /// `out` unit.
  std::pair<BufferKind, uint32_t> resolve(BufferKind buf, uint32_t unit) const {
    if (inPlace_ && buf == BufferKind::In) {
      const int64_t at = int64_t(unit) + inShift_;
      if (at >= 0 && at < int64_t(outUnits_)) return {BufferKind::Out, uint32_t(at)};
    }
    return {buf, unit};
  }

  /// One number per cell, for maps keyed by cell.
  uint64_t key(BufferKind buf, uint32_t unit) const {
    const auto [b, u] = resolve(buf, unit);
    return uint64_t(b) << 32 | u;
  }

private:
  uint32_t outUnits_;
  int64_t inShift_ = 0;
  bool inPlace_;
};

/// "out[3]".
inline std::string unitName(BufferKind buf, uint32_t unit) {
  return std::string(toString(buf)) + "[" + std::to_string(unit) + "]";
}

/// Problems reported at most: a broken plan at scale repeats one mistake on every rank.
constexpr size_t kMaxProblems = 64;

}  // namespace collplan
