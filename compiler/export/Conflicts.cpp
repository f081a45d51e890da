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
instructionDependencies(const std::vector<mlir::coll::Instruction> &ops, UnitLayout layout) {
  // Address spaces: out (with in when aliased, shifted by inShift), in when apart, and tmp.
  enum Space { Shared, Input, Scratch };
  auto spaceOf = [&](const BufRef &r) {
    if (r.buf == BufferKind::Tmp) return Scratch;
    return r.buf == BufferKind::In && !layout.aliased ? Input : Shared;
  };
  auto address = [&](const BufRef &r) {
    return int64_t(r.offset) + (r.buf == BufferKind::In && layout.aliased ? layout.inShift : 0);
  };
  int64_t low[3] = {0, 0, 0}, high[3] = {0, 0, 0};
  for (const mlir::coll::Instruction &op : ops)
    for (const auto *list : {&op.srcs, &op.dsts})
      for (const BufRef &r : *list) {
        const Space space = spaceOf(r);
        low[space] = std::min(low[space], address(r));
        high[space] = std::max(high[space], address(r) + r.length);
      }
  std::vector<UnitHistory> units[3];
  for (int space = 0; space < 3; ++space) units[space].resize(size_t(high[space] - low[space]));
  auto unitsOf = [&](const BufRef &r, auto &&visit) {
    const Space space = spaceOf(r);
    const int64_t begin = address(r) - low[space];
    for (int64_t u = begin; u < begin + r.length; ++u) visit(units[space][size_t(u)]);
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
    if (op.srcs.empty() && op.dsts.empty() && op.step >= 0) {
      // A token with a round: it carries what the tokens received in earlier rounds joined.
      for (uint32_t j = 0; j < i; ++j)
        if (ops[j].recv && ops[j].srcs.empty() && ops[j].dsts.empty() && ops[j].step < op.step)
          depend(j);
      continue;
    }
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

bool inputUnitsClobbered(const std::vector<mlir::coll::Instruction> &ops, int64_t inShift) {
  std::vector<bool> clobbered;  // per input unit: its alias in `out` was written
  for (const mlir::coll::Instruction &op : ops) {
    for (const BufRef &src : op.srcs)
      if (src.buf == BufferKind::In)
        for (uint32_t u = src.offset; u < src.offset + src.length; ++u)
          if (u < clobbered.size() && clobbered[u]) return true;
    for (const BufRef &dst : op.dsts) {
      if (dst.buf != BufferKind::Out) continue;
      for (int64_t u = int64_t(dst.offset) - inShift; u < int64_t(dst.offset + dst.length) - inShift; ++u) {
        if (u < 0) continue;
        if (size_t(u) >= clobbered.size()) clobbered.resize(size_t(u) + 1, false);
        clobbered[size_t(u)] = true;
      }
    }
  }
  return false;
}

}  // namespace collplan
