// hoistSends: sends moved above the receives they do not depend on, per rank program.
#include "compiler/export/HoistSends.h"

#include "compiler/export/RankOps.h"

#include <algorithm>
#include <vector>

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// True when `writer` may change what `reader` reads, with separate buffers or in place (the
/// in-place layout overlaps wherever the separate one does, so it is the one to check).
bool writesAnyOf(const PlanOp &writer, const PlanOp &reader, int64_t inShift) {
  for (const BufRef &dst : writer.dsts)
    for (const BufRef &src : reader.srcs)
      if (rangesOverlap(dst, src, inShift, /*inPlace=*/true)) return true;
  return false;
}

bool isSendOnly(const PlanOp &op) { return !op.sends.empty() && !op.recv && op.dsts.empty(); }

/// A receive the send may pass: it sends nothing itself (sends keep their order).
bool isPassableRecv(const PlanOp &op) { return op.recv && op.sends.empty(); }

}  // namespace

unsigned hoistSendOps(std::vector<PlanOp> &ops, int64_t inShift, std::vector<size_t> *order) {
  unsigned moved = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!isSendOnly(ops[i])) continue;
    size_t to = i;
    while (to > 0 && isPassableRecv(ops[to - 1]) && !writesAnyOf(ops[to - 1], ops[i], inShift))
      --to;
    if (to == i) continue;
    std::rotate(ops.begin() + long(to), ops.begin() + long(i), ops.begin() + long(i) + 1);
    if (order)
      std::rotate(order->begin() + long(to), order->begin() + long(i),
                  order->begin() + long(i) + 1);
    ++moved;
  }
  return moved;
}

unsigned hoistSends(ProgramOp program) {
  unsigned moved = 0;
  for (auto rankOp : program.getBody().front().getOps<RankOp>()) {
    std::vector<Operation *> instrs;
    for (Operation &instr : rankOp.getBody().front()) instrs.push_back(&instr);
    std::vector<PlanOp> ops = readRankOps(rankOp);
    std::vector<size_t> order(ops.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    const unsigned rankMoved =
        hoistSendOps(ops, inPlaceUnitShift(program, int(rankOp.getRank())), &order);
    // Reorder the instructions themselves, so they keep their locations.
    for (size_t k = 0; rankMoved && k < order.size(); ++k)
      instrs[order[k]]->moveBefore(&rankOp.getBody().front(), rankOp.getBody().front().end());
    moved += rankMoved;
  }
  return moved;
}

}  // namespace collplan
