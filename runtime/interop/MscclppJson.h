// MSCCL++ execution plans (the JSON that mscclpp's executor loads) to and from collplan plans.
#pragma once

#include "runtime/interop/Imported.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/VerifyFile.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace collplan {

/// Threads per thread block the executor launches when a plan does not say
/// (`num_threads_per_block`, ExecutionPlan::Impl::loadExecutionPlan).
inline constexpr uint32_t kMscclppDefaultThreadsPerBlock = 1024;
/// The executor's limits on one operation (execution_common.hpp): at most 8 channels, inputs
/// or outputs each.
inline constexpr uint32_t kMscclppMaxOperands = 8;
/// Ops per thread block the executor holds (MAX_OPERATION; it refuses plans with more).
inline constexpr uint32_t kMscclppMaxOperations = 64;

struct MscclppExportOptions {
  std::string name; ///< `name`; empty: the plan's algorithm
  /// The size range the executor may choose the plan for (`min_message_size`,
  /// `max_message_size`; input bytes, output bytes for allgather).
  uint64_t minMessageSize = 0;
  uint64_t maxMessageSize = std::numeric_limits<uint64_t>::max();
  uint32_t threadsPerBlock = kMscclppDefaultThreadsPerBlock;
  /// Writes `"inplace": true` (the executor then offers the plan to in-place calls only);
  /// refused for a plan that is not `inplace_safe`.
  bool inplace = false;
};

/// Writes `plan` (valid, with every rank's program) as an MSCCL++ execution plan of the format
/// mscclpp's current executor reads (protocol Simple; `gpus[]` with `channels`,
/// `remote_buffers`, `semaphores` and `threadblocks[]` of `ops`, `channels` and
/// `remote_buffer_refs`). Collplan channel c of a rank becomes its thread block c; every
/// (rank, thread block, peer) it talks to gets one memory channel, listed in (thread block,
/// peer) order on both ends so that the executor pairs them. A message becomes a `put` into a
/// scratch slot of its own on the receiver (after the plan's scratch units, so no slot is ever
/// reused and the sender needs no back-pressure) and a `signal`; its receive becomes a `wait`
/// on that channel and a `copy` or `re` (reduce, folding left to right in collplan's operand
/// order) from the slot. A `nop` (the executor's __syncthreads) separates consecutive ops.
/// Throws std::invalid_argument naming the rank, channel, op and reason for what the format
/// cannot express: barriers and rooted collectives (the executor has no root), ops ordered
/// across channels (`after`), ops of more than kMscclppMaxOperands operands, and more thread
/// blocks' channels to one peer than the executor indexes.
std::string planToMscclppJson(const Plan &plan, const MscclppExportOptions &options = {});

/// Reads an MSCCL++ execution plan (protocols Simple and LL; memory channels; the memory-channel
/// ops put, get, signal, wait and their relaxed forms, copy, re, res, rre, rres, barrier and
/// the packet ops ppkt, rppkt, cpkt, upkt, repkt, respkt, recpkt, recspkt) as a plan: thread
/// block t of a GPU becomes its collplan channel t, and data moves as the executor moves it
/// (lowerMscclppOps, MscclppLower.h): puts land in the peer's buffer and the ops after the
/// matching wait wait for them; a read of a peer's buffer is sent at the signal the reader's
/// last wait before it matches, and is refused when no wait guards it; packets are received
/// where they land and read once they arrived. An in-place plan reads its input through the
/// output buffer. Reducing collectives get op sum (the call names the operation). The plan is
/// validated (validatePlan) and proven (verifyPlan). Throws PlanError "<origin>: <field path>:
/// <reason>" for malformed JSON, unknown or misspelt fields, out-of-range ids, ops and channel
/// types import does not read (port and switch channels, pipelines, semaphores, thread block
/// groups), unguarded or racing remote reads, puts without a fenced signal, signals no wait
/// consumes, packets nothing writes or two ops write, and the validator's and the proof's
/// messages. Limits: collplan's senders block after kChannelDepth unconsumed messages where the
/// executor's never do, so such plans are reported deadlocked.
Plan mscclppJsonToPlan(std::string_view json, const std::string &origin);

/// mscclppJsonToPlan, with the sizes the plan is offered for: `min_message_size` and
/// `max_message_size` (absent: 0 and UINT64_MAX, the executor's defaults). A minimum above the
/// maximum (a plan no call selects) is a PlanError.
ImportedPlan importMscclppJson(std::string_view json, const std::string &origin);

/// plan-verify's check of an MSCCL++ execution plan file: read (within the limit on a file
/// collplan reads), imported and proven as verifyPlanFile proves a plan file. Never throws for a
/// bad file: its first problem is the result's.
FileVerification verifyMscclppJsonFile(const std::string &path, const VerifyFileOptions &options);

} // namespace collplan
