// ProgramOrder: which ops of one rank's program finish before others start, over its channels.
#pragma once

#include "runtime/plan/Plan.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace collplan {

/// Happens-before between the ops of one rank: program order within each channel and the
/// `after` edges between channels, taken transitively. Ops not ordered either way may run in
/// any order or at once. Built in O(ops × channels).
class ProgramOrder {
public:
  /// Requires `program`'s `after` references to be in range and acyclic (findOrderCycle).
  explicit ProgramOrder(const RankProgram &program);

  /// True when op `a` finishes before op `b` starts in every execution (false for a == b).
  bool before(OpRef a, OpRef b) const;

  /// The first op (by channel, then index) that can never start because program order and
  /// `after` edges form a cycle, if any.
  static std::optional<OpRef> findOrderCycle(const RankProgram &program);

private:
  size_t flat(OpRef ref) const { return base_[ref.channel] + ref.op; }

  uint32_t channels_ = 0;
  std::vector<uint32_t> base_;    ///< per channel: flat index of its first op
  /// clock_[flat(b) * channels_ + c]: how many ops of channel c happen before op b.
  std::vector<uint32_t> clock_;
};

}  // namespace collplan
