// FusedChains: the recv_reduce chains every executor runs as one fused pass, decided once so
// the deadlock check models exactly what runs.
#pragma once

#include "runtime/plan/Plan.h"

#include <cstdint>
#include <vector>

namespace collplan {

/// Per channel of `program`, per op: how many ops from it on run as one fused n-ary pass (1 for
/// an op that heads no chain; 0 for an op inside another's chain). A chain is ops of one channel
/// that accumulate into one range D: the head receives and reduces its srcs into D (no sends, no
/// `after`), each next op receives from a peer not yet in the chain and folds its message into
/// D alone (recv_pos 1, no `after`). The chain ends after an op that sends (its value must be
/// final) and at an op another channel names in `after`: the pass finishes its ops together,
/// when the last message is in, so an op others wait for must end it.
/// The executors (PreparedProgram, the device image) fuse exactly these, and checkDeadlockFree
/// runs each as one step that needs every message of the chain and room for its sends.
std::vector<std::vector<uint32_t>> fusedChainLengths(const RankProgram &program);

}  // namespace collplan
