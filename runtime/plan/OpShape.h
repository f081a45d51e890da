// The allowed shape (srcs, recv, dsts, sends) of each op kind, as documented on OpKind in Plan.h.
#pragma once

#include "runtime/plan/Plan.h"

#include <string>

namespace collplan {

/// Returns an empty string when `op` has the shape its kind requires, otherwise the reason and
/// sets `field` to the JSON member at fault ("src", "recv", "recv_pos", "dst", "send" or "op").
///
/// Token ops (no buffer references at all; a barrier's messages) are allowed for send, recv,
/// recv_copy_send and dup: they transfer a zero-length message.
std::string opShapeError(const PlanOp &op, const char *&field);

}  // namespace collplan
