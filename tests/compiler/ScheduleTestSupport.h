// Helpers for compiler tests: parse coll IR from text and capture diagnostics.
#pragma once

#include "compiler/lowering/Algorithms.h"
#include "dialects/coll/CollOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
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

/// Text of a ring allreduce schedule on `ranks` ranks (chunk c reduced along c+1 .. c, then
/// circulated), the textbook schedule the verifier and cost tests use at any scale.
std::string ringAllreduceText(int ranks);

/// Parameters under which `algorithm` applies to `ranks` ranks, or nothing when it does not
/// (KangaRing needs pairs of ranks per device, hierarchical two nodes of two ranks at least).
std::optional<AlgorithmParams> algorithmParamsFor(const AlgorithmInfo &algorithm, int ranks);

}  // namespace collplan::testing
