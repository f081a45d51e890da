// instructionDependencies: last writer and readers per buffer unit, over one rank's instructions.
#include "compiler/export/Conflicts.h"

#include <algorithm>
#include <limits>

namespace collplan {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

/// What touched one unit so far: its last writer and the readers since.
struct UnitHistory {
  uint32_t writer = kNone;
  std::vector<uint32_t> readers;
};

}  // namespace

std::vector<std::vector<uint32_t>>
instructionDependencies(const std::vector<mlir::coll::Instruction> &ops, int64_t inShift) {
  // in and out share one address space (in shifted by inShift), tmp has its own.
  int64_t low = 0, high = 0, tmpHigh = 0;
  auto address = [&](const BufRef &r) {
    return int64_t(r.offset) + (r.buf == BufferKind::In ? inShift : 0);
  };
  for (const mlir::coll::Instruction &op : ops)
    for (const auto *list : {&op.srcs, &op.dsts})
      for (const BufRef &r : *list) {
        if (r.buf == BufferKind::Tmp) {
          tmpHigh = std::max(tmpHigh, int64_t(r.offset + r.length));
          continue;
        }
        low = std::min(low, address(r));
        high = std::max(high, address(r) + r.length);
      }
  std::vector<UnitHistory> shared(static_cast<size_t>(high - low));
  std::vector<UnitHistory> tmp(static_cast<size_t>(tmpHigh));
  auto unitsOf = [&](const BufRef &r, auto &&visit) {
    std::vector<UnitHistory> &space = r.buf == BufferKind::Tmp ? tmp : shared;
    const int64_t begin = r.buf == BufferKind::Tmp ? int64_t(r.offset) : address(r) - low;
    for (int64_t u = begin; u < begin + r.length; ++u) visit(space[size_t(u)]);
  };

  std::vector<std::vector<uint32_t>> deps(ops.size());
  std::vector<uint32_t> stamp(ops.size(), kNone);  // de-duplicates each instruction's list
  uint32_t barrier = kNone;                        // the last instruction without refs
  std::vector<uint32_t> sinceBarrier;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    auto depend = [&](uint32_t j) {
      if (j != kNone && j != i && stamp[j] != i) {
        stamp[j] = i;
        deps[i].push_back(j);
      }
    };
    const mlir::coll::Instruction &op = ops[i];
    if (op.srcs.empty() && op.dsts.empty()) {
      for (uint32_t j : sinceBarrier) depend(j);
      depend(barrier);
      barrier = i;
      sinceBarrier.clear();
      continue;
    }
    depend(barrier);
    sinceBarrier.push_back(i);
    for (const BufRef &r : op.srcs) unitsOf(r, [&](UnitHistory &h) { depend(h.writer); });
    for (const BufRef &r : op.dsts)
      unitsOf(r, [&](UnitHistory &h) {
        depend(h.writer);
        for (uint32_t j : h.readers) depend(j);
      });
    for (const BufRef &r : op.srcs) unitsOf(r, [&](UnitHistory &h) { h.readers.push_back(i); });
    for (const BufRef &r : op.dsts)
      unitsOf(r, [&](UnitHistory &h) {
        h.writer = i;
        h.readers.clear();
      });
  }
  return deps;
}

}  // namespace collplan
