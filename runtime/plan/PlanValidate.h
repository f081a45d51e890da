// Semantic validation of a Plan: units and ranges, op shapes, peers, channels, transfer matching, deadlock.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanError.h"

#include <string>

namespace collplan {

/// Checks everything the loader checks beyond syntax, for plans built in memory (the compiler,
/// tests) as well as loaded ones. Throws PlanError naming `origin`, the field (e.g.
/// `programs[2].channels[0].ops[5].src[0]`) and the reason. A plan holding one rank's program
/// (Plan::onlyRank) gets the checks of that program alone: header, shapes, ranges, peers,
/// `after` references and their order; transfer matching and deadlock freedom need every rank.
/// Runs in O(total ops × channels + total buffer references).
///
/// A plan with `symmetry` has its transfers and deadlock freedom checked on rank 0's program
/// under the symmetry, once the programs are known to hold it: `Claimed` compares every program
/// with rank 0's instantiated first; `Instantiated` (the loader, the compiler) states that every
/// program was built by instantiateProgram from rank 0's.
enum class SymmetrySource { Claimed, Instantiated };
void validatePlan(const Plan &plan, const std::string &origin,
                  SymmetrySource source = SymmetrySource::Claimed);

/// validatePlan for a plan nested in a larger document: field paths start at `path`.
void validatePlanAt(const Plan &plan, const std::string &origin, const FieldPath &path,
                    SymmetrySource source = SymmetrySource::Claimed);

/// The transfer check alone: the k-th send from rank p to rank q on channel c and the k-th recv
/// from p on channel c of rank q exist together and agree in length and unit phase. Assumes
/// peers are in range (validatePlan checks them first). A plan with `symmetry`, whose programs
/// must hold it (validatePlan checks that first), has rank 0's FIFOs checked where they stand
/// for every rank's.
void checkTransfersMatched(const Plan &plan, const std::string &origin, const FieldPath &path);

/// Units of `buffer` on `rank`: in = inputBlocks * units/blocks, out = outputBlocks * units/blocks,
/// tmp = scratchUnits.
uint32_t bufferUnits(const Plan &plan, BufferKind buffer, int rank);

}  // namespace collplan
