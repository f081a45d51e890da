// MSCCL XML algorithms (the format of microsoft/msccl's executor) to and from collplan plans.
#pragma once

#include "runtime/interop/Imported.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/VerifyFile.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace collplan {

/// The executor's NCCL protocol of an algorithm (`proto`).
enum class MscclProtocol : uint8_t { Simple, LL, LL128 };

std::string_view toString(MscclProtocol protocol);
std::optional<MscclProtocol> parseMscclProtocol(std::string_view name);

/// The executor's limits (msccl_struct.h and its build defaults): a step moves fewer than 72
/// chunks (MSCCL_MAX_COUNT), a thread block holds at most 64 steps (MSCCL_MAX_NUM_STEPS, a
/// build option of the executor) and a GPU at most 32 channels' worth of thread blocks.
inline constexpr uint32_t kMscclMaxCount = 72;
inline constexpr uint32_t kMscclDefaultMaxSteps = 64;

struct MscclExportOptions {
  std::string name; ///< `name`; empty: the plan's algorithm
  MscclProtocol protocol = MscclProtocol::Simple;
  /// The size range the executor may choose the algorithm for (`minBytes`, `maxBytes`: bytes of
  /// the whole message, inclusive; msccl_lifecycle.cc). The executor reads them as int64:
  /// INT64_MAX (or 0) means no upper bound.
  uint64_t minBytes = 0;
  uint64_t maxBytes = uint64_t(std::numeric_limits<int64_t>::max());
  /// Steps per thread block the target executor was built for (MSCCL_MAX_NUM_STEPS).
  uint32_t maxStepsPerThreadBlock = kMscclDefaultMaxSteps;
};

/// Writes `plan` (valid, with every rank's program) as an MSCCL XML algorithm. Units become
/// chunks (`nchunksperloop` = plan.units; `s_chunks` = scratchUnits); collplan channel c becomes
/// MSCCL channel c, cut into thread blocks of one send and one receive peer each, so messages
/// keep their per-(sender, receiver, channel) order; program order across thread blocks and
/// `after` become `depid`/`deps` (extra ones as `nop` steps). An op MSCCL has no step for is
/// written as several steps (copies and sends of its first destination, `re` chains).
/// Throws std::invalid_argument naming the rank, channel, op and reason for what MSCCL cannot
/// express: barriers and rooted collectives (the XML has no root), a received value reduced
/// with more than one local operand or forwarded without a destination, a reduce whose
/// destination overlaps a later operand, steps of more than kMscclMaxCount chunks, thread
/// blocks of more than `maxStepsPerThreadBlock` steps, and channels whose ops need two thread
/// blocks with one peer.
std::string planToMscclXml(const Plan &plan, const MscclExportOptions &options = {});

/// Reads an MSCCL XML algorithm as a plan: every `<gpu>`'s thread blocks run symbolically (steps
/// in order, waiting for `depid`/`deps`, messages per (sender, receiver, chan) with
/// kChannelDepth slots), and each rank's steps on one `chan` become one collplan channel in the
/// order they ran; dependencies across channels become `after`. A two-operand fold takes the
/// operand holding the lower rank's contribution first (the executor's binary operations are
/// commutative bitwise, so this canonical order is what the proof compares across ranks).
/// Reducing collectives get op sum (the XML leaves the operation to the call). An in-place-only
/// algorithm (msccl-tools' `inplace="1"`) gets a leading copy of `in` to where an in-place call
/// has it, and its `i` references become `o`. The plan is validated (validatePlan) and proven
/// (verifyPlan). Throws PlanError "<origin>:<line>: <element>: <reason>" for malformed XML,
/// unknown names, out-of-range values, missing attributes, MSCCL's own rules (dense thread
/// block ids, one thread block per peer and channel) and deadlocks, and the validator's and the
/// proof's messages for plans that do not run or compute their collective.
Plan mscclXmlToPlan(std::string_view xml, const std::string &origin);

/// mscclXmlToPlan, with the sizes the executor offers the algorithm for: `minBytes` and
/// `maxBytes` (absent: 0 and no bound; `maxBytes` 0, which the executor reads as no bound, and
/// INT64_MAX, the largest it can hold, are UINT64_MAX). A `minBytes` above `maxBytes` (an
/// algorithm the executor never chooses) is a PlanError.
ImportedPlan importMscclXml(std::string_view xml, const std::string &origin);

/// plan-verify's check of an MSCCL XML file: read (within the limit on a file collplan reads),
/// imported and proven as verifyPlanFile proves a plan file. Never throws for a bad file: its
/// first problem is the result's.
FileVerification verifyMscclXmlFile(const std::string &path, const VerifyFileOptions &options);

} // namespace collplan
