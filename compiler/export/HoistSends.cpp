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

/// True when a write of `dst` may change the data of `src`: the same buffer's ranges
/// intersect, or, with the input aliased into the output `inShift` units on (in-place), the
/// shifted ranges do.
bool mayOverlap(const BufRef &dst, const BufRef &src, int64_t inShift) {
  auto intersects = [](int64_t a, int64_t aLength, int64_t b, int64_t bLength) {
    return a < b + bLength && b < a + aLength;
  };
  if (dst.buf == src.buf && intersects(dst.offset, dst.length, src.offset, src.length))
    return true;
  if (dst.buf == BufferKind::Tmp || src.buf == BufferKind::Tmp || dst.buf == src.buf) return false;
  const int64_t dstBegin = dst.offset + (dst.buf == BufferKind::In ? inShift : 0);
  const int64_t srcBegin = src.offset + (src.buf == BufferKind::In ? inShift : 0);
  return intersects(dstBegin, dst.length, srcBegin, src.length);
}

bool writesAnyOf(const PlanOp &writer, const PlanOp &reader, int64_t inShift) {
  for (const BufRef &dst : writer.dsts)
    for (const BufRef &src : reader.srcs)
      if (mayOverlap(dst, src, inShift)) return true;
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
