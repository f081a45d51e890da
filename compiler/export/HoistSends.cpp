// hoistSends: sends moved above the receives they do not depend on, per rank program.
#include "compiler/export/HoistSends.h"

#include "dialects/coll/CollectiveSpec.h"
#include "runtime/core/Collective.h"

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

unsigned hoistSends(ProgramOp program) {
  const CollectiveSpec spec = CollectiveSpec::fromOp(program);
  const int blocks = messageBlocks(spec.kind, spec.ranks);
  const int64_t unitsPerBlock = blocks > 0 ? int64_t(program.getUnits()) / blocks : 0;
  unsigned moved = 0;
  for (auto rankOp : program.getBody().front().getOps<RankOp>()) {
    const int64_t inShift =
        inPlaceBlockShift(spec.kind, spec.root, int(rankOp.getRank())) * unitsPerBlock;
    std::vector<Operation *> instrs;
    std::vector<PlanOp> ops;
    for (Operation &instr : rankOp.getBody().front()) {
      instrs.push_back(&instr);
      ops.push_back(toPlanOp(&instr));
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!isSendOnly(ops[i])) continue;
      size_t to = i;
      while (to > 0 && isPassableRecv(ops[to - 1]) && !writesAnyOf(ops[to - 1], ops[i], inShift))
        --to;
      if (to == i) continue;
      instrs[i]->moveBefore(instrs[to]);
      std::rotate(instrs.begin() + long(to), instrs.begin() + long(i), instrs.begin() + long(i) + 1);
      std::rotate(ops.begin() + long(to), ops.begin() + long(i), ops.begin() + long(i) + 1);
      ++moved;
    }
  }
  return moved;
}

}  // namespace collplan
