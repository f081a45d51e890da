// checkTransfersMatched: pairs every send with exactly one recv by plan-wide transfer id.
#include "runtime/plan/PlanValidate.h"

#include <unordered_map>

namespace collplan {
namespace {

/// Where one side of a transfer sits: program, op and (for sends) the index in `send`.
struct Site {
  int rank = 0;
  size_t op = 0;
  size_t send = 0;
};

struct TransferSides {
  Site sender;
  Site receiver;
  bool hasSend = false;
  bool hasRecv = false;
};

}  // namespace

void checkTransfersMatched(const Plan &plan, const std::string &origin, const FieldPath &path) {
  // Field paths are rendered as text here: sites are reported long after they were visited.
  const std::string prefix = path.str();
  const std::string programsText = prefix.empty() ? "programs" : prefix + ".programs";
  auto opText = [&](const Site &s) {
    return programsText + '[' + std::to_string(s.rank) + "].ops[" + std::to_string(s.op) + ']';
  };
  auto sendText = [&](const Site &s) { return opText(s) + ".send[" + std::to_string(s.send) + ']'; };
  auto fail = [&](const std::string &field, const std::string &reason) {
    throw PlanError(origin, field, reason);
  };
  auto unitPhase = [&](const PlanOp &op, uint32_t unitsPerBlock) -> uint32_t {
    if (unitsPerBlock <= 1) return 0;
    if (!op.srcs.empty()) return op.srcs.front().offset % unitsPerBlock;
    if (!op.dsts.empty()) return op.dsts.front().offset % unitsPerBlock;
    return 0;
  };

  size_t totalOps = 0;
  for (const RankProgram &p : plan.programs) totalOps += p.ops.size();
  std::unordered_map<uint32_t, TransferSides> transfers;
  transfers.reserve(totalOps);

  for (size_t r = 0; r < plan.programs.size(); ++r) {
    const std::vector<PlanOp> &ops = plan.programs[r].ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      const PlanOp &op = ops[i];
      for (size_t k = 0; k < op.sends.size(); ++k) {
        Site site{int(r), i, k};
        TransferSides &t = transfers[op.sends[k].id];
        if (t.hasSend)
          fail(sendText(site) + ".id",
                         "transfer id " + std::to_string(op.sends[k].id) +
                             " is already used by the send at " + sendText(t.sender) +
                             " (ids must be unique per plan)");
        t.sender = site;
        t.hasSend = true;
      }
      if (op.recv) {
        Site site{int(r), i, 0};
        TransferSides &t = transfers[op.recv->id];
        if (t.hasRecv)
          fail(opText(site) + ".recv.id",
                         "transfer id " + std::to_string(op.recv->id) +
                             " is already received at " + opText(t.receiver) +
                             " (ids must be unique per plan)");
        t.receiver = site;
        t.hasRecv = true;
      }
    }
  }

  const int blocks = messageBlocks(plan.collective, plan.ranks);
  const uint32_t unitsPerBlock = blocks > 0 ? plan.units / uint32_t(blocks) : 0;
  // Report in program order, not hash order, so messages are deterministic.
  for (size_t r = 0; r < plan.programs.size(); ++r) {
    const std::vector<PlanOp> &ops = plan.programs[r].ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      const PlanOp &op = ops[i];
      for (size_t k = 0; k < op.sends.size(); ++k) {
        const Endpoint &e = op.sends[k];
        const TransferSides &t = transfers.at(e.id);
        Site site{int(r), i, k};
        if (!t.hasRecv)
          fail(sendText(site),
                         "unmatched send: no recv of transfer id " + std::to_string(e.id) +
                             " (rank " + std::to_string(r) + " -> rank " +
                             std::to_string(e.peer) + ")");
        const PlanOp &recvOp = plan.programs[size_t(t.receiver.rank)].ops[t.receiver.op];
        const std::string recvPath = opText(t.receiver) + ".recv";
        if (t.receiver.rank != e.peer || recvOp.recv->peer != int32_t(r))
          fail(sendText(site),
                         "transfer id " + std::to_string(e.id) + " is sent from rank " +
                             std::to_string(r) + " to rank " + std::to_string(e.peer) +
                             " but received at " + recvPath + " on rank " +
                             std::to_string(t.receiver.rank) + " from rank " +
                             std::to_string(recvOp.recv->peer));
        if (op.length() != recvOp.length())
          fail(sendText(site),
                         "transfer id " + std::to_string(e.id) + " sends " +
                             std::to_string(op.length()) + " units but " + recvPath +
                             " receives " + std::to_string(recvOp.length()));
        if (unitPhase(op, unitsPerBlock) != unitPhase(recvOp, unitsPerBlock))
          fail(sendText(site),
                         "transfer id " + std::to_string(e.id) + " sends units of phase " +
                             std::to_string(unitPhase(op, unitsPerBlock)) + " but " +
                             recvPath + " stores them at phase " +
                             std::to_string(unitPhase(recvOp, unitsPerBlock)) +
                             " (offset mod units per block must agree)");
      }
      if (op.recv && !transfers.at(op.recv->id).hasSend)
        fail(opText(Site{int(r), i, 0}) + ".recv",
                       "unmatched recv: no send of transfer id " + std::to_string(op.recv->id) +
                           " (expected from rank " + std::to_string(op.recv->peer) + ")");
    }
  }
}

}  // namespace collplan
