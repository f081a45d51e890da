// PlanHazards: per-cell access lists of one rank, checked against its program order.
#include "runtime/plan/PlanHazards.h"

#include "runtime/plan/BufRefText.h"
#include "runtime/plan/ProgramOrder.h"
#include "runtime/plan/UnitSpace.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

namespace collplan {
namespace {

/// One op's access to one cell of a rank's buffers.
struct Access {
  uint64_t cell;
  OpRef op;
  bool writes;
  BufferKind buf;  ///< the buffer as the op names it
  uint32_t unit;

  bool operator<(const Access &o) const {
    if (cell != o.cell) return cell < o.cell;
    if (op.channel != o.op.channel) return op.channel < o.op.channel;
    return op.op < o.op.op;
  }
};

/// Whether `op` writes `dst` with a plain copy of what the cells already hold: its only operand
/// is a range `space` lays onto the same cells (an allgather's own block copied in place).
bool copiesOntoItself(const PlanOp &op, const BufRef &dst, const UnitSpace &space) {
  if (op.srcs.size() != 1 || op.recv) return false;
  const BufRef &src = op.srcs.front();
  return space.key(src.buf, src.offset) == space.key(dst.buf, dst.offset);
}

/// Every access of `program`'s ops, sorted by cell (as `space` lays the units out), then op.
/// Writes that copy cells onto themselves change nothing and are left out.
std::vector<Access> accessesOf(const RankProgram &program, const UnitSpace &space) {
  std::vector<Access> list;
  auto add = [&](OpRef op, const BufRef &ref, bool writes) {
    for (uint32_t k = 0; k < ref.length; ++k)
      list.push_back({space.key(ref.buf, ref.offset + k), op, writes, ref.buf, ref.offset + k});
  };
  for (uint32_t c = 0; c < program.channels.size(); ++c)
    for (uint32_t i = 0; i < program.channels[c].ops.size(); ++i) {
      const PlanOp &op = program.channels[c].ops[i];
      for (const BufRef &src : op.srcs) add(OpRef{c, i}, src, false);
      for (const BufRef &dst : op.dsts)
        if (!copiesOntoItself(op, dst, space)) add(OpRef{c, i}, dst, true);
    }
  std::sort(list.begin(), list.end());
  return list;
}

/// Calls `visit(first, last)` for each run of accesses to one cell.
template <typename Visit>
void forEachCell(const std::vector<Access> &list, Visit &&visit) {
  for (size_t begin = 0, end = 0; begin < list.size(); begin = end) {
    end = begin;
    while (end < list.size() && list[end].cell == list[begin].cell) ++end;
    visit(list.begin() + ptrdiff_t(begin), list.begin() + ptrdiff_t(end));
  }
}

std::string rankUnit(BufferKind buf, uint32_t unit, int rank) {
  return unitName(buf, unit) + " of rank " + std::to_string(rank);
}

std::string opName(OpRef op) {
  return "channels[" + std::to_string(op.channel) + "].ops[" + std::to_string(op.op) + "]";
}

constexpr const char *kInPlace =
    "in an in-place call (the plan is marked inplace_safe, so in and out are one buffer): ";

/// One channel: walks the ops in order, remembering the first writer of every `out` unit.
void checkAliasingInOrder(const Plan &plan, int r, std::vector<PlanProblem> &problems) {
  const Channel &channel = plan.programs[size_t(r)].channels[0];
  const UnitSpace space(plan, r, true);
  std::vector<uint32_t> firstWriter(bufferUnits(plan, BufferKind::Out, r), UINT32_MAX);
  for (uint32_t i = 0; i < channel.ops.size(); ++i) {
    const PlanOp &op = channel.ops[i];
    for (const BufRef &src : op.srcs)
      for (uint32_t k = 0; k < src.length && src.buf == BufferKind::In; ++k) {
        const auto [buf, at] = space.resolve(src.buf, src.offset + k);
        if (buf != BufferKind::Out || firstWriter[at] == UINT32_MAX) continue;
        problems.push_back({formatOpPath(r, 0, i),
                            kInPlace + ("reads " + rankUnit(src.buf, src.offset + k, r)) +
                                " after " + formatOpPath(r, 0, firstWriter[at]) +
                                " overwrote it through " + unitName(buf, at)});
        return;
      }
    for (const BufRef &dst : op.dsts)
      for (uint32_t k = 0; k < dst.length && dst.buf == BufferKind::Out; ++k)
        if (!copiesOntoItself(op, dst, space))
          firstWriter[dst.offset + k] = std::min(firstWriter[dst.offset + k], i);
  }
}

/// Several channels: every read of an `in` cell against every write of it, by ProgramOrder.
void checkAliasingAcrossChannels(const Plan &plan, int r, std::vector<PlanProblem> &problems) {
  const RankProgram &program = plan.programs[size_t(r)];
  const ProgramOrder order(program);
  bool reported = false;
  forEachCell(accessesOf(program, UnitSpace(plan, r, true)), [&](auto first, auto last) {
    for (auto read = first; read != last && !reported; ++read) {
      if (read->writes || read->buf != BufferKind::In) continue;
      for (auto write = first; write != last; ++write) {
        if (!write->writes || write->op == read->op || order.before(read->op, write->op))
          continue;
        const bool after = order.before(write->op, read->op);
        problems.push_back(
            {formatOpPath(r, read->op.channel, read->op.op),
             kInPlace + ("reads " + rankUnit(read->buf, read->unit, r)) +
                 (after ? " after " + formatOpPath(r, write->op.channel, write->op.op) +
                              " overwrote it through "
                        : " while " + opName(write->op) + " may overwrite it (no `after` orders "
                                                          "them) through ") +
                 unitName(write->buf, write->unit)});
        reported = true;
        break;
      }
    }
  });
}

/// The first unit of `dst` that holds a cell `src` reads at another position, as "out[2]"; or
/// nothing. Ranges of one buffer share cells at the same positions only when they start
/// together; an `in` range against an `out` range in an in-place call is compared cell by cell
/// (an `in` range may run past the end of `out`, where its cells are its own).
std::optional<std::string> shiftedOverlap(const BufRef &src, const BufRef &dst,
                                          const UnitSpace &space) {
  const bool aliasing = space.inPlace() && src.buf != dst.buf && src.buf != BufferKind::Tmp &&
                        dst.buf != BufferKind::Tmp;
  if (!aliasing) {
    if (src.buf != dst.buf || src.offset == dst.offset) return std::nullopt;
    const uint32_t lo = std::max(src.offset, dst.offset);
    const uint32_t hi = std::min(src.offset + src.length, dst.offset + dst.length);
    if (lo >= hi) return std::nullopt;
    return unitName(dst.buf, lo);
  }
  std::unordered_map<uint64_t, uint32_t> positionOf;  // cell -> position in src
  for (uint32_t k = 0; k < src.length; ++k)
    positionOf.emplace(space.key(src.buf, src.offset + k), k);
  for (uint32_t k = 0; k < dst.length; ++k) {
    auto it = positionOf.find(space.key(dst.buf, dst.offset + k));
    if (it != positionOf.end() && it->second != k) return unitName(dst.buf, dst.offset + k);
  }
  return std::nullopt;
}

/// The first shifted overlap between an operand and a destination of `op`, described.
std::optional<std::string> operandOverlap(const PlanOp &op, const UnitSpace &space) {
  for (const BufRef &dst : op.dsts)
    for (const BufRef &src : op.srcs)
      if (std::optional<std::string> unit = shiftedOverlap(src, dst, space))
        return (space.inPlace() ? std::string(kInPlace) : std::string()) + "writes " +
               formatBufRef(dst) + " over its own operand " + formatBufRef(src) +
               " at another position (" + *unit +
               "): the executors write as they read, so the operand would be overwritten before "
               "it is read";
  return std::nullopt;
}

}  // namespace

void checkOperandOverlap(const Plan &plan, std::vector<PlanProblem> &problems) {
  for (int r = 0; r < plan.ranks && problems.size() < kMaxProblems; ++r)
    for (bool inPlace : {false, true}) {
      if (inPlace && !plan.inplaceSafe) continue;
      const UnitSpace space(plan, r, inPlace);
      const RankProgram &program = plan.programs[size_t(r)];
      for (uint32_t c = 0; c < program.channels.size(); ++c)
        for (uint32_t i = 0; i < program.channels[c].ops.size(); ++i)
          if (std::optional<std::string> why = operandOverlap(program.channels[c].ops[i], space)) {
            problems.push_back({formatOpPath(r, c, i), *why});
            if (problems.size() >= kMaxProblems) return;
          }
    }
}

void checkChannelHazards(const Plan &plan, std::vector<PlanProblem> &problems) {
  for (int r = 0; r < plan.ranks && problems.size() < kMaxProblems; ++r) {
    const RankProgram &program = plan.programs[size_t(r)];
    if (program.channels.size() < 2) continue;
    const ProgramOrder order(program);
    forEachCell(accessesOf(program, UnitSpace(plan, r, false)), [&](auto first, auto last) {
      for (auto x = first; x != last && problems.size() < kMaxProblems; ++x)
        for (auto y = x + 1; y != last; ++y) {
          if (x->op.channel == y->op.channel || !(x->writes || y->writes)) continue;
          if (order.before(x->op, y->op) || order.before(y->op, x->op)) continue;
          const Access &w = x->writes ? *x : *y, &o = x->writes ? *y : *x;
          problems.push_back({formatOpPath(r, w.op.channel, w.op.op),
                              "writes " + rankUnit(w.buf, w.unit, r) + " while " + opName(o.op) +
                                  " may " + (o.writes ? "write" : "read") +
                                  " it at the same time (no `after` orders the two channels' "
                                  "ops)"});
          return;
        }
    });
  }
}

void checkInPlaceAliasing(const Plan &plan, std::vector<PlanProblem> &problems) {
  for (int r = 0; r < plan.ranks && problems.size() < kMaxProblems; ++r) {
    const size_t channels = plan.programs[size_t(r)].channels.size();
    if (channels == 1) checkAliasingInOrder(plan, r, problems);
    if (channels > 1) checkAliasingAcrossChannels(plan, r, problems);
  }
}

}  // namespace collplan
