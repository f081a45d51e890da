// The compact text form of buffer references used in plan files: "in[0:4]", "out[2:3]", "tmp[0:1]".
#pragma once

#include "runtime/plan/Plan.h"

#include <string>
#include <string_view>

namespace collplan {

/// "<buf>[<begin>:<end>]" with a half-open unit range, e.g. {Tmp, 2, 1} -> "tmp[2:3]".
std::string formatBufRef(const BufRef &ref);

/// Parses the text form. Returns false and sets `why` when the text is malformed (unknown buffer,
/// missing brackets, non-numeric or out-of-range bounds, end <= begin).
bool parseBufRef(std::string_view text, BufRef &out, std::string &why);

/// The JSON path of an op in a plan document: "programs[1].channels[0].ops[3]".
std::string formatOpPath(int rank, uint32_t channel, size_t op);

}  // namespace collplan
