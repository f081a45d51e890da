// Hash-consed reduction trees: the provenance of every chunk value in a schedule.
#pragma once

#include "dialects/coll/CollectiveSpec.h"

#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <vector>

namespace mlir {
class Operation;
}

namespace collplan {

using TermId = uint32_t;

/// A reduction tree: a leaf (one contribution) or the binary fold of two trees. An n-ary
/// reduce folds left to right, so reduce(a, b, c) is fold(fold(a, b), c): two schedules that
/// build the same tree compute bitwise-identical results. Identical trees share one id.
struct Term {
  bool isLeaf = true;
  Contribution leaf;        ///< valid for leaves
  TermId lhs = 0, rhs = 0;  ///< valid for folds
  uint64_t leafCount = 1;   ///< leaves counted with repeats, saturating at UINT64_MAX
  uint64_t leafHash = 0;    ///< sum of the leaves' hashes: equal multisets, equal sums
  int64_t chunkKey = 0;     ///< chunk * slices + slice of all leaves, or -1 when they differ
  mlir::Operation *origin = nullptr;  ///< the op that first built this fold
  unsigned operandIndex = 0;          ///< operand of `origin` that `rhs` came from
};

/// The table of all terms of one schedule.
class TermTable {
public:
  explicit TermTable(int slices) : slices_(slices) {}

  TermId leaf(const Contribution &c);
  TermId fold(TermId lhs, TermId rhs, mlir::Operation *origin, unsigned operandIndex);
  const Term &operator[](TermId id) const { return terms_[id]; }
  size_t size() const { return terms_.size(); }

  /// Hash of one contribution, consistent with Term::leafHash sums.
  static uint64_t hashOf(const Contribution &c);

  /// Each contribution under `root` with its multiplicity, sorted. Linear in the size of the
  /// DAG under `root` (not in the number of leaves counted with repeats).
  std::vector<std::pair<Contribution, uint64_t>> leavesOf(TermId root) const;

  /// The lowest fold under `root` whose two sides both contain `c`: where `c` is counted twice.
  std::optional<TermId> firstDoubleCount(TermId root, const Contribution &c) const;

private:
  /// Term ids reachable from `root`, in increasing order (children before parents).
  std::vector<TermId> reachable(TermId root) const;

  int slices_;
  std::vector<Term> terms_;
  llvm::DenseMap<uint64_t, TermId> leaves_;
  llvm::DenseMap<std::pair<TermId, TermId>, TermId> folds_;
};

}  // namespace collplan
