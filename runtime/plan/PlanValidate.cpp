// validatePlan: plan-level fields, channels, per-op shapes, buffer ranges, peers and `after`
// references; then matching and deadlock.
#include "runtime/plan/PlanValidate.h"

#include "runtime/plan/BufRefText.h"
#include "runtime/plan/Deadlock.h"
#include "runtime/plan/OpShape.h"
#include "runtime/plan/ProgramOrder.h"
#include "runtime/plan/Symmetry.h"

namespace collplan {
namespace {

struct PlanChecker {
  const Plan &plan;
  const std::string &origin;
  const FieldPath &root;
  uint32_t unitsPerBlock = 0;

  [[noreturn]] void fail(const FieldPath &path, const std::string &reason) const {
    throwPlanError(origin, path, reason);
  }

  void checkHeader() const {
    if (plan.formatVersion != kPlanFormatVersion)
      fail(root / "version", "unsupported plan format version " +
                                 std::to_string(plan.formatVersion) + " (this build reads version " +
                                 std::to_string(kPlanFormatVersion) + ")");
    if (plan.onlyRank >= plan.ranks)
      fail(root / "programs", "holds only the program of rank " + std::to_string(plan.onlyRank) +
                                  ", which is out of range for " + std::to_string(plan.ranks) +
                                  " ranks");
    if (plan.ranks < 1) fail(root / "ranks", "must be at least 1, got " + std::to_string(plan.ranks));
    const std::string kind(toString(plan.collective));
    if (needsReduceOp(plan.collective) && !plan.op)
      fail(root / "op", "missing required field: " + kind + " needs a reduction op");
    if (!needsReduceOp(plan.collective) && plan.op)
      fail(root / "op", kind + " does not reduce; remove the op");
    if (needsRoot(plan.collective) && (plan.root < 0 || plan.root >= plan.ranks))
      fail(root / "root", "root " + std::to_string(plan.root) + " is out of range for " +
                              std::to_string(plan.ranks) + " ranks");
    if (plan.algorithm.empty()) fail(root / "algorithm", "must not be empty");
    if (plan.programs.size() != size_t(plan.ranks))
      fail(root / "programs", "has " + std::to_string(plan.programs.size()) +
                                  " programs but ranks is " + std::to_string(plan.ranks) +
                                  " (one program per rank)");
  }

  uint32_t checkUnits() const {
    const int blocks = messageBlocks(plan.collective, plan.ranks);
    if (blocks == 0) return 0;  // barrier: no data, any unit count (usually 0)
    if (plan.units == 0 || plan.units % uint32_t(blocks) != 0)
      fail(root / "units", std::to_string(plan.units) + " is not a positive multiple of the " +
                               std::to_string(blocks) + " message block" +
                               (blocks == 1 ? "" : "s") + " of " +
                               std::string(toString(plan.collective)) + " on " +
                               std::to_string(plan.ranks) + " ranks");
    return plan.units / uint32_t(blocks);
  }

  /// Checks one reference: in range for this rank's buffer, of the op's length and phase.
  void checkRef(const BufRef &ref, int rank, uint32_t length, uint32_t phase,
                const FieldPath &path) const {
    const uint32_t size = bufferUnits(plan, ref.buf, rank);
    if (ref.length == 0) fail(path, "empty unit range " + formatBufRef(ref));
    if (uint64_t(ref.offset) + ref.length > size) {
      std::string why = formatBufRef(ref) + " is out of range: rank " + std::to_string(rank) +
                        "'s " + std::string(toString(ref.buf)) + " buffer holds " +
                        std::to_string(size) + " unit" + (size == 1 ? "" : "s");
      if (ref.buf != BufferKind::Tmp && size == 0)
        why += " (" + std::string(toString(plan.collective)) + " gives this rank no " +
               std::string(toString(ref.buf)) + " buffer)";
      fail(path, why);
    }
    if (ref.length != length)
      fail(path, formatBufRef(ref) + " is " + std::to_string(ref.length) +
                     " units long but the op's value is " + std::to_string(length) +
                     " (all src/dst operands of an op have one length)");
    if (unitsPerBlock > 1 && ref.offset % unitsPerBlock != phase)
      fail(path, formatBufRef(ref) + " starts at unit phase " +
                     std::to_string(ref.offset % unitsPerBlock) + " but the op's value has phase " +
                     std::to_string(phase) + " (offset mod " + std::to_string(unitsPerBlock) +
                     " units per block): units of different phases differ in size when the " +
                     "count does not divide evenly, so one op must use a single phase");
  }

  void checkPeer(int32_t peer, int rank, const FieldPath &path) const {
    if (peer < 0 || peer >= plan.ranks)
      fail(path, "peer " + std::to_string(peer) + " is out of range for " +
                     std::to_string(plan.ranks) + " ranks");
    if (peer == rank) fail(path, "peer " + std::to_string(peer) + " is this rank itself");
  }

  void checkAfter(const PlanOp &op, const RankProgram &program, uint32_t channel,
                  const FieldPath &path) const {
    FieldPath afterPath = path / "after";
    for (size_t k = 0; k < op.after.size(); ++k) {
      const OpRef &dep = op.after[k];
      FieldPath depPath = afterPath[k];
      if (dep.channel >= program.channels.size())
        fail(depPath / "channel", "channel " + std::to_string(dep.channel) + " does not exist: " +
                                      "this rank has " + std::to_string(program.channels.size()) +
                                      " channels");
      if (dep.channel == channel)
        fail(depPath / "channel", "names the op's own channel " + std::to_string(channel) +
                                      ": ops of one channel already run in program order");
      if (dep.op >= program.channels[dep.channel].ops.size())
        fail(depPath / "op", "op " + std::to_string(dep.op) + " does not exist: channel " +
                                 std::to_string(dep.channel) + " has " +
                                 std::to_string(program.channels[dep.channel].ops.size()) +
                                 " ops");
    }
  }

  void checkProgram(const RankProgram &program, int rank, const FieldPath &programPath) const {
    FieldPath channelsPath = programPath / "channels";
    if (program.channels.size() > kMaxChannels)
      fail(channelsPath, "has " + std::to_string(program.channels.size()) +
                             " channels; a rank may have at most " + std::to_string(kMaxChannels));
    for (uint32_t c = 0; c < program.channels.size(); ++c) {
      FieldPath channelPath = channelsPath[c];
      FieldPath opsPath = channelPath / "ops";
      const std::vector<PlanOp> &ops = program.channels[c].ops;
      for (size_t i = 0; i < ops.size(); ++i) {
        FieldPath opPath = opsPath[i];
        checkOp(ops[i], rank, opPath);
        checkAfter(ops[i], program, c, opPath);
      }
    }
    if (std::optional<OpRef> stuck = ProgramOrder::findOrderCycle(program)) {
      FieldPath channelPath = channelsPath[stuck->channel];
      FieldPath opsPath = channelPath / "ops";
      fail(opsPath[stuck->op] / "after",
           "can never start: the `after` references of rank " + std::to_string(rank) +
               " and the order of its channels form a cycle");
    }
  }

  void checkOp(const PlanOp &op, int rank, const FieldPath &path) const {
    const char *field = "op";
    if (std::string why = opShapeError(op, field); !why.empty()) fail(path / field, why);
    const uint32_t length = op.length();
    const BufRef *first = !op.srcs.empty() ? &op.srcs.front()
                          : !op.dsts.empty() ? &op.dsts.front() : nullptr;
    const uint32_t phase = first && unitsPerBlock > 1 ? first->offset % unitsPerBlock : 0;
    FieldPath srcPath = path / "src", dstPath = path / "dst", sendPath = path / "send";
    for (size_t k = 0; k < op.srcs.size(); ++k) checkRef(op.srcs[k], rank, length, phase, srcPath[k]);
    for (size_t k = 0; k < op.dsts.size(); ++k) {
      if (op.dsts[k].buf == BufferKind::In)
        fail(dstPath[k], formatBufRef(op.dsts[k]) +
                             " writes the caller's input, which plans only read (write out or tmp)");
      checkRef(op.dsts[k], rank, length, phase, dstPath[k]);
    }
    if (op.recv) checkPeer(*op.recv, rank, path / "recv");
    for (size_t k = 0; k < op.sends.size(); ++k) {
      checkPeer(op.sends[k], rank, sendPath[k]);
      for (size_t j = 0; j < k; ++j)
        if (op.sends[j] == op.sends[k])
          fail(sendPath[k], "sends its value to rank " + std::to_string(op.sends[k]) +
                                " twice (send[" + std::to_string(j) + "] already does)");
    }
    if (op.step < -1) fail(path / "step", "must be -1 (unscheduled) or >= 0");
  }
};

}  // namespace

uint32_t bufferUnits(const Plan &plan, BufferKind buffer, int rank) {
  if (buffer == BufferKind::Tmp) return plan.scratchUnits;
  const int blocks = messageBlocks(plan.collective, plan.ranks);
  if (blocks <= 0) return 0;
  const uint64_t unitsPerBlock = plan.units / uint32_t(blocks);
  const int held = buffer == BufferKind::In
                       ? inputBlocks(plan.collective, plan.ranks, rank, plan.root)
                       : outputBlocks(plan.collective, plan.ranks, rank, plan.root);
  return uint32_t(uint64_t(held) * unitsPerBlock);
}

void validatePlanAt(const Plan &plan, const std::string &origin, const FieldPath &path,
                    SymmetrySource source) {
  PlanChecker checker{plan, origin, path};
  checker.checkHeader();
  checker.unitsPerBlock = checker.checkUnits();
  FieldPath programsPath = path / "programs";
  for (size_t r = 0; r < plan.programs.size(); ++r) {
    if (plan.onlyRank >= 0 && int(r) != plan.onlyRank) continue;
    FieldPath programPath = programsPath[r];
    checker.checkProgram(plan.programs[r], int(r), programPath);
  }
  if (plan.onlyRank >= 0) return;
  if (source == SymmetrySource::Claimed) checkSymmetryHolds(plan, origin, path);
  checkTransfersMatched(plan, origin, path);
  DeadlockReport report = checkDeadlockFree(plan);
  if (!report.deadlockFree()) {
    const StuckChannel &first = report.first();
    FieldPath programPath = programsPath[size_t(first.rank)];
    FieldPath channelsPath = programPath / "channels";
    FieldPath channelPath = channelsPath[first.channel];
    FieldPath opsPath = channelPath / "ops";
    throwPlanError(origin, opsPath[first.op], report.describe());
  }
}

void validatePlan(const Plan &plan, const std::string &origin, SymmetrySource source) {
  validatePlanAt(plan, origin, FieldPath(), source);
}

}  // namespace collplan
