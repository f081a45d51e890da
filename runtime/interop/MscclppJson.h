// MSCCL++ execution plans (the JSON that mscclpp's executor loads) to and from collplan plans.
#pragma once

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

/// Reads an MSCCL++ execution plan (protocol Simple, memory channels; ops nop, put, signal,
/// wait, copy, re) as a plan: thread block t of a GPU becomes its collplan channel t; each put
/// becomes a send of its src_buff, and the `wait` that consumes the `signal` after it (the k-th
/// memory channel of the sender to the receiver pairs with the receiver's k-th to the sender)
/// becomes a recv into the put's destination; copy and re become copy and reduce. Reducing
/// collectives get op sum (the call names the operation). The plan is validated (validatePlan)
/// and proven (verifyPlan). Throws PlanError "<origin>: <field path>: <reason>" for malformed
/// JSON, unknown or misspelt fields, out-of-range ids, ops and channel types import does not
/// read (reads of peers' memory, packets, port and switch channels, semaphores), a signal
/// without a put, a put never signalled, a wait with no signal, a message between thread
/// blocks of different ids, and the validator's and the proof's messages.
/// Limits: a put's data counts as delivered at the receiver's wait, so a receiver touching the
/// destination between the two is not seen; collplan's senders block after kChannelDepth
/// unconsumed messages where the executor's never do, so such plans are reported deadlocked.
Plan mscclppJsonToPlan(std::string_view json, const std::string &origin);

/// plan-verify's check of an MSCCL++ execution plan file: read (within the limit on a file
/// collplan reads), imported and proven as verifyPlanFile proves a plan file. Never throws for a
/// bad file: its first problem is the result's.
FileVerification verifyMscclppJsonFile(const std::string &path, const VerifyFileOptions &options);

} // namespace collplan
