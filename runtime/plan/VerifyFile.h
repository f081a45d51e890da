// verifyPlanFile: what plan-verify and the Python module report for one plan or bundle file.
#pragma once

#include "runtime/plan/PlanVerify.h"

#include <cstddef>
#include <string>
#include <vector>

namespace collplan {

/// What proving one file came to: how many plans it holds and every problem, with paths from
/// the document's root ("tables[0].buckets[1].plan.programs[2]..."). A file that cannot be read
/// or is not a structurally valid plan or bundle has one problem with an empty path, whose
/// message names the file.
struct FileVerification {
  std::string file;
  size_t plans = 0;
  std::vector<PlanProblem> problems;
  bool ok() const { return problems.empty(); }
};

/// Reads `path` (JSON or CBOR; its "format" says plan or bundle), checks its structure and
/// proves every plan in it (verifyPlan), listing every problem rather than stopping at the
/// first. Never throws for a bad file.
FileVerification verifyPlanFile(const std::string &path);

}  // namespace collplan
