// lowerMscclppOps: an MSCCL++ execution plan's one-sided ops as collplan messages and ops.
#pragma once

#include "runtime/interop/MscclppModel.h"
#include "runtime/plan/Plan.h"

#include <string>

namespace collplan {

/// How an imported plan's buffers map onto collplan's: an in-place plan (`"inplace": true`,
/// which the executor offers to in-place calls only) reads and writes its input through the
/// output buffer, `shift(rank)` units in (NCCL's layout).
struct MscclppBufferMap {
  bool inplace = false;
  uint32_t unitsPerBlock = 0;
  CollectiveKind collective = CollectiveKind::AllReduce;
  BufRef operator()(int rank, BufRef ref) const;
};

/// Fills `plan.programs` (header already set) from `doc`'s thread blocks. Thread block t of a
/// GPU becomes collplan channel t. Every message travels on a mailbox channel (the largest
/// thread block count + the sender's thread block), sent where the sender's thread block issues
/// it and received where it lands; the ops that may use what landed wait for the receive
/// through `after`:
/// - puts (`put`, the peer destinations of `res`/`rres`) land in the peer's buffer; the peer's
///   ops after the `wait` matching the (non-relaxed) `signal` after them wait for them;
/// - reads of a peer's buffer (`get`, `rre`, `rres`) are sent by the owner at the `signal`
///   that the reader's last `wait` before the read matches, into a landing slot of the reader's
///   (scratch after the file's): a read with no such wait is refused, as is one guarded by a
///   relaxed signal after the owner wrote the buffer, or one whose owner overwrites the buffer,
///   in its thread block, before it waits for the reader;
/// - packets (`ppkt`, `rppkt`, `respkt`, `recspkt`) carry their flag, so a packet write is a
///   message received where it lands, and the ops that read that scratch wait for it; a
///   scratch unit written twice or read but never written is refused;
/// - `barrier` orders the thread blocks of one barrier id through `after`.
/// Throws PlanError "<origin>: <op path>: <reason>".
void lowerMscclppOps(const MscclppPlan &doc, const std::string &origin,
                     const MscclppBufferMap &map, Plan &plan);

} // namespace collplan
