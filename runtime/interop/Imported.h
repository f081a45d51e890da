// What every importer of another library's format does last: validate and prove the plan.
#pragma once

#include "runtime/plan/Plan.h"

#include <cstdint>
#include <limits>
#include <string>

namespace collplan {

/// The message sizes another library's file is offered for, counted as collplan's bucket ranges
/// count them: bytes of the whole message M, both ends inclusive. MSCCL's executor compares
/// count × type size × ngpus (allgather, reducescatter, alltoall) or count × type size against
/// `minBytes`/`maxBytes`, MSCCL++'s against `min_message_size`/`max_message_size` (its NCCL
/// shim passes the whole message of allreduce, allgather and reducescatter), both inclusive;
/// each is that M.
struct SizeRange {
  uint64_t minBytes = 0;
  uint64_t maxBytes = std::numeric_limits<uint64_t>::max();
  bool operator==(const SizeRange &o) const {
    return minBytes == o.minBytes && maxBytes == o.maxBytes;
  }
};

/// An imported plan and the sizes its file is offered for.
struct ImportedPlan {
  Plan plan;
  SizeRange sizes;
};

/// Validates `plan` (validatePlan) and proves it (verifyPlan); throws PlanError naming `origin`
/// and the first problem's op ("does not compute its allreduce: ...", with a count of the
/// others).
void proveImportedPlan(const Plan &plan, const std::string &origin);

}  // namespace collplan
