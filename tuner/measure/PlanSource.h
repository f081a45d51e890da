// PlanSource: where the plan for each message size comes from (a plan file, a bundle, built-ins).
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/topology/Topology.h"
#include "tuner/measure/BenchCase.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace collplan::measure {

/// The plans a benchmark or a drawing uses, one per message size. Loading errors are thrown as
/// PlanError (file, field, reason) or std::invalid_argument (a plan that does not fit the case).
class PlanSource {
public:
  /// One plan for every size. Checks it against `c` (collective, op, root, ranks).
  static PlanSource fromPlan(Plan plan, const std::string &origin, const BenchCase &c);
  /// Loads a plan file; the case's collective, op, root and ranks must match the plan.
  static PlanSource fromPlanFile(const std::string &path, const BenchCase &c);
  /// Loads a bundle; planFor(bytes) is the bucket lookup of the (collective, dtype, op) table.
  static PlanSource fromBundleFile(const std::string &path, const BenchCase &c);
  /// A bundle already loaded from `path`.
  static PlanSource fromBundle(std::shared_ptr<const Bundle> bundle, const std::string &path,
                               const BenchCase &c);
  /// The runtime's built-in plans for the case, by size as the default rules choose them
  /// (DefaultRules.h): what a communicator without a bundle runs. Refuses (invalid_argument),
  /// before building them, plans whose ops with their prepared programs exceed the machine's
  /// memory (the ops grow with the square of the ranks).
  /// `nodes`: the machines the ranks span (the default rules choose by it).
  static PlanSource builtIn(const BenchCase &c, int nodes = 1);

  /// The plan that serves a message of `bytes` bytes.
  const Plan &planFor(uint64_t bytes) const;
  /// "plan ring.plan.json", "bundle b.json", "built-in plans".
  const std::string &label() const { return label_; }
  /// Ops of every plan planFor() may return, over all ranks (what the ranks prepare).
  uint64_t totalOps() const;

private:
  std::shared_ptr<const Plan> single_;
  std::shared_ptr<const Bundle> bundle_;
  const BucketTable *table_ = nullptr;
  std::string label_;
};

/// loadPlanFile / loadBundleFile for a command line: when the file is the other kind (a bundle
/// given as a plan, or a plan given as a bundle), the PlanError's message gains a hint naming the
/// right flag ("... (this is a bundle: use --bundle)").
Plan loadPlanFileForTool(const std::string &path, const PlanLoadOptions &options = {});
Bundle loadBundleFileForTool(const std::string &path, const PlanLoadOptions &options = {});

/// Why `bundle` does not fit a run on `backend` (and `topology`, when known): one line per
/// mismatch ("it was tuned for backend sim, this run is on cpu-threads"); empty when it fits.
std::vector<std::string> bundleMismatches(const Bundle &bundle, std::string_view backend,
                                          const Topology *topology);

/// Throws std::invalid_argument when `plan` cannot serve calls of case `c`: the message names
/// `origin` and the mismatching field (e.g. "the plan has 4 ranks but --ranks is 2").
void checkPlanFitsCase(const Plan &plan, const std::string &origin, const BenchCase &c);

}  // namespace collplan::measure
