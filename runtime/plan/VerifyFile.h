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
  /// The fold trees of one plan of the file ("tables[0].buckets[1].plan", "" for a plan file).
  struct PlanOrders {
    std::string path;
    std::vector<ReductionOrder> orders;
  };

  std::string file;
  size_t plans = 0;
  std::vector<PlanProblem> problems;
  std::vector<PlanOrders> orders;  ///< per plan, when asked for (VerifyFileOptions)
  bool ok() const { return problems.empty(); }
};

struct VerifyFileOptions {
  bool orders = false;     ///< list every plan's fold trees
  bool sameOrder = false;  ///< require one fold tree for every reduced unit of every plan
};

/// Reads `path` (JSON or CBOR; its "format" says plan or bundle), checks its structure and
/// proves every plan in it (verifyPlan), listing every problem rather than stopping at the
/// first. With `sameOrder`, every reduced output unit of every plan of a table (a plan file: of
/// the plan) must fold the same tree over ranks, so results do not depend on which plan a
/// message size lands on; the first unit of each plan that differs from the table's first tree
/// is a problem. Never throws for a bad file.
FileVerification verifyPlanFile(const std::string &path, const VerifyFileOptions &options = {});

/// verifyPlanFile's proof and order checks of one plan `file` held in another format, already
/// read (an MSCCL XML algorithm, runtime/interop/MscclXml.h).
FileVerification verifyPlanOf(const std::string &file, const Plan &plan,
                              const VerifyFileOptions &options = {});


}  // namespace collplan
