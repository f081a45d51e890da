// Helpers for compiler tests: parse coll IR from text and capture diagnostics.
#pragma once

#include "compiler/lowering/Algorithms.h"
#include "runtime/plan/Plan.h"
#include "dialects/coll/CollOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace collplan::testing {

/// An MLIR context with the coll dialect that records every diagnostic it sees.
class IRFixture {
public:
  IRFixture();
  ~IRFixture();
  /// Parses `text`; fails the test (and returns null) when it does not parse and verify.
  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &text);
  /// The first coll.schedule of `module`.
  static mlir::coll::ScheduleOp firstSchedule(mlir::ModuleOp module);
  const std::vector<std::string> &diagnostics() const { return diagnostics_; }
  void clearDiagnostics() { diagnostics_.clear(); }
  mlir::MLIRContext &context() { return context_; }

private:
  mlir::MLIRContext context_;
  std::vector<std::string> diagnostics_;
  struct Handler;
  std::unique_ptr<Handler> handler_;
};

/// `kind` on `ranks` ranks, summing where it reduces: the spec most compiler tests compile.
CollectiveSpec summingSpec(CollectiveKind kind, int ranks);

/// Text of a ring allreduce schedule on `ranks` ranks (chunk c reduced along c+1 .. c, then
/// circulated), the textbook schedule the verifier and cost tests use at any scale.
std::string ringAllreduceText(int ranks);

/// The parameters the sweeps give `algorithm` (its registry entry's `example`, else none), or
/// nothing when they do not apply to `kind` on `ranks` ranks (KangaRing needs pairs of ranks per
/// device, hierarchical two nodes of two ranks at least): checkAlgorithm says why not.
std::optional<std::vector<std::string>> sweepParamsFor(const AlgorithmInfo &algorithm,
                                                       CollectiveKind kind, int ranks);

/// `algorithm`'s parameters with `assignments` (KEY=VALUE) set; fails the test on a refusal.
AlgorithmParams paramsOf(const std::string &algorithm,
                         const std::vector<std::string> &assignments = {},
                         const Topology *topology = nullptr);
/// Why `algorithm` refuses the parameter `assignment` (empty when it takes it).
std::string paramError(const std::string &algorithm, const std::string &assignment);

/// One registered algorithm with one collective it implements: a parameter of the tests that
/// run every algorithm.
struct AlgorithmCase {
  const AlgorithmInfo *algorithm;
  CollectiveKind kind;
};
void PrintTo(const AlgorithmCase &c, std::ostream *os);
/// Every registered algorithm x every collective it implements.
std::vector<AlgorithmCase> everyAlgorithmCase();
/// "<algorithm>_<collective>" with anything but letters and digits as '_': a test name.
std::string algorithmCaseName(const AlgorithmCase &c);
/// The plans of `c` on `ranks` ranks (sum for reducing kinds): one and two slices, at each root
/// a rooted kind is tested at (0 and the last rank). Empty when the algorithm does not apply to
/// that many ranks; a plan that fails to compile fails the test, naming it.
std::vector<Plan> compiledPlans(const AlgorithmCase &c, int ranks);

}  // namespace collplan::testing
