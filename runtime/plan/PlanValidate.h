// Semantic validation of a Plan: units and ranges, op shapes, peers, send/recv matching, deadlock.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanError.h"

#include <string>

namespace collplan {

/// Checks everything the JSON loader checks beyond syntax, for plans built in memory (the
/// compiler, tests) as well as loaded ones. Throws PlanError naming `origin`, the field (e.g.
/// `programs[2].ops[5].src[0]`) and the reason. Runs in O(total ops + total buffer references).
void validatePlan(const Plan &plan, const std::string &origin);

/// validatePlan for a plan nested in a larger document: field paths start at `path`.
void validatePlanAt(const Plan &plan, const std::string &origin, const FieldPath &path);

/// The transfer check alone: every send {peer q, id i} on rank p matches exactly one recv
/// {peer p, id i} on rank q with the same length and unit phase, and ids are unique per plan.
/// Assumes peers are in range (validatePlan checks them first).
void checkTransfersMatched(const Plan &plan, const std::string &origin, const FieldPath &path);

/// Units of `buffer` on `rank`: in = inputBlocks * units/blocks, out = outputBlocks * units/blocks,
/// tmp = scratchUnits.
uint32_t bufferUnits(const Plan &plan, BufferKind buffer, int rank);

}  // namespace collplan
