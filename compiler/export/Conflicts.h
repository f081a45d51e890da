// Which of one rank's level-3 instructions must stay ordered, from the buffer units they touch.
#pragma once

#include "dialects/coll/CollOps.h"

#include <cstdint>
#include <vector>

namespace collplan {

/// For each instruction of one rank (in program order), the earlier instructions it must follow:
/// those that touch a unit it touches where one of the two writes it. Units are compared with the
/// input aliased into the output (`inShift`, as an in-place call lays them out: the layout that
/// overlaps most), tmp apart. Only the direct conflicts are listed (the last writer of a unit and
/// the readers since); the others follow by transitivity. An instruction without buffer refs (a
/// barrier's token) keeps its place: it follows every earlier instruction, and every later one
/// follows it. Linear in the units touched.
std::vector<std::vector<uint32_t>>
instructionDependencies(const std::vector<mlir::coll::Instruction> &ops, int64_t inShift);

}  // namespace collplan
