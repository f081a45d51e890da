// coll-fuse-dup: copies of one value to different ranks become one duplicated write.
#include "compiler/Passes.h"
#include "compiler/passes/PassInputs.h"

#include "dialects/coll/CollOps.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseSet.h"

#include <set>

namespace collplan {
#define GEN_PASS_DEF_COLLFUSEDUP
#include "compiler/Passes.h.inc"
}  // namespace collplan

using namespace mlir;
using namespace mlir::coll;

namespace {

/// Fuses the copies of `value` to distinct remote ranks into one coll.dup placed where the
/// first of them was (it dominates every later use). Adds the erased copies to `erased`.
void fuseCopiesOf(Value value, llvm::DenseSet<Operation *> &erased) {
  int64_t home = residentRank(value);
  SmallVector<CopyOp> copies;
  std::set<int64_t> targets;
  for (Operation *user : value.getUsers())
    if (auto copy = dyn_cast<CopyOp>(user))
      if (int64_t(copy.getRank()) != home && targets.insert(copy.getRank()).second)
        copies.push_back(copy);
  if (copies.size() < 2) return;
  // Use lists are unordered: keep the copies' program order in the dup's rank list.
  llvm::sort(copies, [](CopyOp a, CopyOp b) { return a->isBeforeInBlock(b); });
  Operation *first = copies.front();
  OpBuilder builder(first);
  SmallVector<int64_t> ranks;
  for (CopyOp copy : copies) ranks.push_back(int64_t(copy.getRank()));
  SmallVector<Type> types(copies.size(), value.getType());
  auto dup = builder.create<DupOp>(first->getLoc(), types, value, ranks);
  dup->setDiscardableAttrs(first->getDiscardableAttrDictionary());
  for (auto [copy, result] : llvm::zip(copies, dup.getResults())) {
    copy.getResult().replaceAllUsesWith(result);
    erased.insert(copy);
    copy.erase();
  }
}

struct CollFuseDupPass : collplan::impl::CollFuseDupBase<CollFuseDupPass> {
  void runOnOperation() override {
    if (mlir::failed(collplan::requireLowered(getOperation(), "coll-fuse-dup", collplan::PassInput::Schedules)))
      return signalPassFailure();
    // Ops are collected first; fusing erases later copies, which are then skipped (their
    // results must not be touched once erased).
    SmallVector<Operation *> ops;
    getOperation().walk([&](ScheduleOp schedule) {
      for (Operation &op : schedule.getBodyBlock()) ops.push_back(&op);
    });
    llvm::DenseSet<Operation *> erased;
    for (Operation *op : ops) {
      if (erased.count(op)) continue;
      for (Value v : op->getResults()) fuseCopiesOf(v, erased);
    }
  }
};

}  // namespace
