// Provenance, location, output and determinism checks of a coll.schedule.
#include "compiler/analysis/ScheduleVerifier.h"

#include "compiler/analysis/ReductionTerms.h"
#include "dialects/coll/CollOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// Where a value resides and which reduction tree it holds.
struct ValueInfo {
  int rank = 0;
  TermId term = 0;
};

class ScheduleChecker {
public:
  ScheduleChecker(ScheduleOp schedule, const VerifyOptions &options)
      : schedule_(schedule), options_(options), spec_(CollectiveSpec::fromOp(schedule)),
        terms_(spec_.slices) {}

  LogicalResult run();

private:
  bool budgetLeft() const { return errors_ < options_.maxErrors; }
  InFlightDiagnostic error(Operation *op) {
    ++errors_;
    InFlightDiagnostic diagnostic = op->emitError();
    if (auto instance = schedule_->getAttrOfType<StringAttr>(mlir::coll::kInstanceAttr))
      diagnostic.attachNote(schedule_.getLoc())
          << "in @" << schedule_.getSymName() << " instantiated for " << instance.getValue();
    return diagnostic;
  }
  std::string name(const Contribution &c) const {
    return describeContribution(c, spec_.slices > 1);
  }
  std::string outputName(int rank, int chunk, int slice) const {
    return "output " + name({rank, chunk, slice});
  }

  void visit(Operation &op);
  void defineAt(Value v, int rank, TermId term) { values_[v] = {rank, term}; }
  bool checkResident(Operation *op, Value v, int rank, unsigned index, const char *what);
  std::optional<TermId> reduceOperands(Operation *op, ValueRange operands, int rank);
  void checkOutput(OutputOp op);
  void checkOutputContent(OutputOp op, int rank, int chunk, int slice, TermId term);
  void checkAllOutputsBound();

  ScheduleOp schedule_;
  const VerifyOptions &options_;
  CollectiveSpec spec_;
  TermTable terms_;
  unsigned errors_ = 0;
  llvm::DenseMap<Value, ValueInfo> values_;
  /// Output (rank, chunk, slice) -> the op that binds it, flat-indexed (see outputIndex).
  std::vector<OutputOp> outputs_;
  size_t outputIndex(int rank, int chunk, int slice) const {
    size_t maxChunks = size_t(std::max(spec_.chunks, spec_.ranks));
    return (size_t(rank) * maxChunks + size_t(chunk)) * size_t(spec_.slices) + size_t(slice);
  }
  /// Term -> the output class whose expected content it was proven to hold.
  llvm::DenseMap<TermId, int64_t> provenTerms_;
  /// Output class -> its first output (for the determinism check).
  llvm::DenseMap<int64_t, std::pair<OutputOp, TermId>> firstOutputOfClass_;
  /// Terms whose double counting was already reported at the reduce that caused it.
  llvm::DenseSet<TermId> reportedTerms_;
};

LogicalResult ScheduleChecker::run() {
  outputs_.assign(outputIndex(spec_.ranks, 0, 0), OutputOp());
  for (Operation &op : schedule_.getBodyBlock()) {
    if (!budgetLeft()) break;
    visit(op);
  }
  if (budgetLeft()) checkAllOutputsBound();
  return success(errors_ == 0);
}

bool ScheduleChecker::checkResident(Operation *op, Value v, int rank, unsigned index,
                                    const char *what) {
  const ValueInfo &info = values_[v];
  if (info.rank == rank || (spec_.remoteReads && isa<coll::ReduceOp, ReduceSendOp>(op)))
    return true;
  error(op) << what << " operand " << index << " resides at rank " << info.rank
            << ", not at rank " << rank
            << (isa<coll::ReduceOp, ReduceSendOp>(op)
                    ? " (copy it there first, or allow remote_reads on the schedule)"
                    : "");
  return false;
}

std::optional<TermId> ScheduleChecker::reduceOperands(Operation *op, ValueRange operands,
                                                      int rank) {
  bool ok = true;
  for (auto [index, v] : llvm::enumerate(operands))
    ok &= checkResident(op, v, rank, index, "reduction");
  if (!ok) return std::nullopt;
  TermId acc = values_[operands[0]].term;
  for (unsigned index = 1; index < operands.size(); ++index) {
    TermId rhs = values_[operands[index]].term;
    const Term &a = terms_[acc], &b = terms_[rhs];
    if (a.chunkKey != b.chunkKey && a.chunkKey >= 0 && b.chunkKey >= 0) {
      auto describeKey = [&](int64_t key) {
        std::string s = "chunk " + std::to_string(key / spec_.slices);
        if (spec_.slices > 1) s += " slice " + std::to_string(key % spec_.slices);
        return s;
      };
      error(op) << "combines " << describeKey(a.chunkKey) << " with " << describeKey(b.chunkKey)
                << " (operand " << index << "): a reduction must combine one chunk";
      return std::nullopt;
    }
    acc = terms_.fold(acc, rhs, op, index);
  }
  return acc;
}

void ScheduleChecker::visit(Operation &op) {
  llvm::TypeSwitch<Operation *>(&op)
      .Case<InputOp>([&](InputOp in) {
        Contribution c{int(in.getRank()), int(in.getChunk()), int(in.getSlice().value_or(0))};
        defineAt(in.getResult(), c.rank, terms_.leaf(c));
      })
      .Case<CopyOp>([&](CopyOp copy) {
        defineAt(copy.getResult(), int(copy.getRank()), values_[copy.getSrc()].term);
      })
      .Case<DupOp>([&](DupOp dup) {
        TermId term = values_[dup.getSrc()].term;
        for (auto [result, rank] : llvm::zip(dup.getResults(), dup.getRanks()))
          defineAt(result, int(rank), term);
      })
      .Case<coll::ReduceOp>([&](coll::ReduceOp reduce) {
        if (auto term = reduceOperands(reduce, reduce.getOperands(), int(reduce.getRank())))
          defineAt(reduce.getResult(), int(reduce.getRank()), *term);
        else
          defineAt(reduce.getResult(), int(reduce.getRank()), values_[reduce.getOperand(0)].term);
      })
      .Case<ReduceSendOp>([&](ReduceSendOp reduce) {
        auto term = reduceOperands(reduce, reduce.getOperands(), int(reduce.getRank()));
        defineAt(reduce.getResult(), int(reduce.getDest()),
                 term ? *term : values_[reduce.getOperand(0)].term);
      })
      .Case<OutputOp>([&](OutputOp out) { checkOutput(out); })
      .Default([&](Operation *other) {
        error(other) << "is not part of a chunk-dataflow schedule";
      });
}

void ScheduleChecker::checkOutput(OutputOp op) {
  int rank = int(op.getRank()), chunk = int(op.getChunk()), slice = int(op.getSlice().value_or(0));
  OutputOp &first = outputs_[outputIndex(rank, chunk, slice)];
  if (first) {
    error(op) << outputName(rank, chunk, slice) << " is bound twice (first at "
              << first.getLoc() << ")";
    return;
  }
  first = op;
  if (!checkResident(op, op.getValue(), rank, 0, "output")) return;
  checkOutputContent(op, rank, chunk, slice, values_[op.getValue()].term);
}

void ScheduleChecker::checkOutputContent(OutputOp op, int rank, int chunk, int slice,
                                         TermId termId) {
  int64_t outputClass = spec_.outputClass(rank, chunk, slice);
  // Fast path: this tree was already proven equal to the content of this class of outputs.
  auto proven = provenTerms_.find(termId);
  bool exact = proven != provenTerms_.end() && proven->second == outputClass;
  if (!exact) {
    std::vector<Contribution> expected = spec_.expectedOutput(rank, chunk, slice);
    // Multiplicities saturate, so the walk stays linear in the DAG even for a tree that
    // doubles a contribution at every level.
    std::vector<std::pair<Contribution, uint64_t>> leaves = terms_.leavesOf(termId);
    std::sort(expected.begin(), expected.end());
    std::vector<Contribution> missing, foreign, repeated;
    size_t i = 0;
    for (const auto &[c, count] : leaves) {
      while (i < expected.size() && expected[i] < c) missing.push_back(expected[i++]);
      if (i < expected.size() && expected[i] == c) {
        ++i;
        if (count > 1 && !spec_.idempotent()) repeated.push_back(c);
      } else {
        foreign.push_back(c);
      }
    }
    while (i < expected.size()) missing.push_back(expected[i++]);

    std::string where = outputName(rank, chunk, slice);
    if (!repeated.empty()) {
      // Report at the reduction that counted the contribution twice, once per tree.
      auto fold = terms_.firstDoubleCount(termId, repeated.front());
      if (fold && reportedTerms_.insert(*fold).second) {
        const Term &t = terms_[*fold];
        error(t.origin) << "counts the contribution of " << name(repeated.front())
                        << " twice: operand " << t.operandIndex
                        << " and the operands before it both contain it (reaches " << where
                        << ")";
      } else if (!fold) {
        error(op) << where << " counts the contribution of " << name(repeated.front())
                  << " twice";
      }
      return;
    }
    if (!missing.empty() || !foreign.empty()) {
      auto diag = error(op);
      diag << where;
      if (!missing.empty()) {
        diag << " lacks the contribution of " << name(missing.front());
        if (missing.size() > 1) diag << " (and " << missing.size() - 1 << " more)";
      }
      if (!foreign.empty()) {
        diag << (missing.empty() ? "" : ", and") << " holds the contribution of "
             << name(foreign.front()) << ", which does not belong there";
        if (foreign.size() > 1) diag << " (and " << foreign.size() - 1 << " more)";
      }
      return;
    }
    provenTerms_[termId] = outputClass;
  }

  if (!options_.checkDeterminism || spec_.idempotent()) return;
  auto [first, inserted] = firstOutputOfClass_.try_emplace(outputClass, op, termId);
  if (!inserted && first->second.second != termId) {
    OutputOp other = first->second.first;
    error(op) << outputName(rank, chunk, slice) << " is not bitwise identical to "
              << outputName(int(other.getRank()), int(other.getChunk()),
                            int(other.getSlice().value_or(0)))
              << ": both combine the same contributions, but in a different reduction order";
  }
}

/// Reports unbound outputs in one diagnostic (a schedule may miss thousands). Skipped after
/// other errors, which usually cause them.
void ScheduleChecker::checkAllOutputsBound() {
  if (errors_ > 0) return;
  std::vector<Contribution> unbound;
  for (int rank = 0; rank < spec_.ranks; ++rank)
    for (int chunk = 0; chunk < spec_.outputChunks(rank); ++chunk)
      for (int slice = 0; slice < spec_.slices; ++slice)
        if (!outputs_[outputIndex(rank, chunk, slice)]) unbound.push_back({rank, chunk, slice});
  if (unbound.empty()) return;
  auto diag = error(schedule_);
  diag << outputName(unbound[0].rank, unbound[0].chunk, unbound[0].slice);
  for (size_t i = 1; i < std::min<size_t>(unbound.size(), 4); ++i)
    diag << ", " << outputName(unbound[i].rank, unbound[i].chunk, unbound[i].slice);
  if (unbound.size() > 4) diag << " and " << unbound.size() - 4 << " more";
  diag << (unbound.size() == 1 ? " is" : " are") << " never bound";
}

}  // namespace

LogicalResult verifySchedule(ScheduleOp schedule, const VerifyOptions &options) {
  return ScheduleChecker(schedule, options).run();
}

}  // namespace collplan
