// Which of one rank's level-3 instructions must stay ordered, from the buffer units they touch.
#pragma once

#include "dialects/coll/CollOps.h"

#include <cstdint>
#include <vector>

namespace collplan {

/// How the export passes compare one rank's `in` and `out` units. A program marked in-place safe
/// (coll.inplace_safe) runs with `in` aliased into `out` (shifted by `inShift` units, as an
/// in-place call lays them out), so its passes keep every aliased read before the write that
/// clobbers it; any other program runs with `in` apart (the executor stages the input of an
/// in-place call), and its passes may order freely what only aliasing would constrain.
struct UnitLayout {
  bool aliased = false;
  int64_t inShift = 0;  ///< units from the start of `out` to where `in` starts, when aliased

  bool overlap(const BufRef &a, const BufRef &b) const {
    return rangesOverlap(a, b, inShift, aliased);
  }
};


/// For each instruction of one rank (in program order), the earlier instructions it must follow:
/// those that touch a unit it touches where one of the two writes it, units compared in `layout`
/// (tmp is always apart). Only the direct conflicts are listed (the last writer of a unit and
/// the readers since); the others follow by transitivity. An instruction without buffer refs (a
/// barrier's token) has no units to compare: one with a round (step) follows the earlier token
/// receives of earlier rounds (the tokens it joins arrived in them), so a round's token goes out
/// before the same round's token comes in; one without keeps its place: it follows every earlier
/// instruction, and every later one follows it. Linear in the units touched (quadratic in the
/// tokens, a barrier's log N).
std::vector<std::vector<uint32_t>>
instructionDependencies(const std::vector<mlir::coll::Instruction> &ops, UnitLayout layout);

/// Whether some instruction reads an input unit after an earlier one wrote the output unit that
/// an in-place call (input at `inShift` units into the output) makes it alias.
bool inputUnitsClobbered(const std::vector<mlir::coll::Instruction> &ops, int64_t inShift);

}  // namespace collplan
