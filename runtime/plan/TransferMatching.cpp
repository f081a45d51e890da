// checkTransfersMatched: pairs the sends and recvs of every (sender, receiver, channel) in order.
#include "runtime/plan/BufRefText.h"
#include "runtime/plan/PlanValidate.h"

#include <map>
#include <tuple>

namespace collplan {
namespace {

/// Where one end of a message sits: program, channel, op and (for sends) the index in `send`.
struct Site {
  int rank = 0;
  uint32_t channel = 0;
  size_t op = 0;
  size_t send = 0;
};

/// The messages of one FIFO, in program order at each end.
struct FifoEnds {
  std::vector<Site> sends, recvs;
};

}  // namespace

void checkTransfersMatched(const Plan &plan, const std::string &origin, const FieldPath &path) {
  // Field paths are rendered as text here: sites are reported long after they were visited.
  const std::string prefix = path.str();
  auto opText = [&](const Site &s) {
    return (prefix.empty() ? "" : prefix + ".") + formatOpPath(s.rank, s.channel, s.op);
  };
  auto opOf = [&](const Site &s) -> const PlanOp & {
    return plan.programs[size_t(s.rank)].channels[s.channel].ops[s.op];
  };
  const int blocks = messageBlocks(plan.collective, plan.ranks);
  const uint32_t unitsPerBlock = blocks > 0 ? plan.units / uint32_t(blocks) : 0;
  auto unitPhase = [&](const PlanOp &op) -> uint32_t {
    if (unitsPerBlock <= 1) return 0;
    if (!op.srcs.empty()) return op.srcs.front().offset % unitsPerBlock;
    if (!op.dsts.empty()) return op.dsts.front().offset % unitsPerBlock;
    return 0;
  };

  // Under a symmetry whose programs hold it, every FIFO is the image of one from rank 0, both
  // ends moved by the same map, so rank 0's FIFOs stand for all where the map keeps lengths
  // (always) and unit phases: a chunk is a block (its phase is the offset within the chunk),
  // nothing moves, a block is one unit, or a block is the message and every buffer moves with
  // the chunks (a send and its receive hold the same chunks, so they move alike).
  const auto phasesKept = [&] {
    if (!plan.symmetry) return false;
    const uint32_t stride = plan.symmetry->stride;
    if (blocks == plan.ranks || stride == 0 || unitsPerBlock <= 1) return true;
    return blocks == 1 && plan.scratchUnits % plan.units == 0;
  };
  const bool fromRankZero = phasesKept();
  // (sender, receiver, channel) -> both ends; an ordered map reports in a stable order.
  std::map<std::tuple<int, int, uint32_t>, FifoEnds> fifos;
  for (size_t r = 0; r < plan.programs.size(); ++r) {
    const std::vector<Channel> &channels = plan.programs[r].channels;
    for (uint32_t c = 0; c < channels.size(); ++c)
      for (size_t i = 0; i < channels[c].ops.size(); ++i) {
        const PlanOp &op = channels[c].ops[i];
        if (op.recv && (!fromRankZero || *op.recv == 0))
          fifos[{*op.recv, int(r), c}].recvs.push_back(Site{int(r), c, i, 0});
        if (fromRankZero && r != 0) continue;
        for (size_t k = 0; k < op.sends.size(); ++k)
          fifos[{int(r), op.sends[k], c}].sends.push_back(Site{int(r), c, i, k});
      }
  }

  for (const auto &[key, ends] : fifos) {
    const auto [sender, receiver, channel] = key;
    auto between = [&, sender = sender, receiver = receiver, channel = channel] {
      return "rank " + std::to_string(sender) + " to rank " + std::to_string(receiver) +
             " on channel " + std::to_string(channel);
    };
    const size_t matched = std::min(ends.sends.size(), ends.recvs.size());
    if (ends.sends.size() > matched) {
      const Site &s = ends.sends[matched];
      throw PlanError(origin, opText(s) + ".send[" + std::to_string(s.send) + ']',
                      "unmatched send: " + between() + " sends " +
                          std::to_string(ends.sends.size()) + " messages but rank " +
                          std::to_string(receiver) + " receives " +
                          std::to_string(ends.recvs.size()) + " from rank " +
                          std::to_string(sender) + " on that channel");
    }
    if (ends.recvs.size() > matched)
      throw PlanError(origin, opText(ends.recvs[matched]) + ".recv",
                      "unmatched recv: rank " + std::to_string(receiver) + " receives " +
                          std::to_string(ends.recvs.size()) + " messages from rank " +
                          std::to_string(sender) + " on channel " + std::to_string(channel) +
                          " but rank " + std::to_string(sender) + " sends " +
                          std::to_string(ends.sends.size()) + " there");
    for (size_t k = 0; k < matched; ++k) {
      const PlanOp &send = opOf(ends.sends[k]), &recv = opOf(ends.recvs[k]);
      if (send.length() == recv.length() && unitPhase(send) == unitPhase(recv)) continue;
      // Texts built only for the error: a plan has millions of messages at 1 024 ranks.
      const std::string message = "message " + std::to_string(k) + " from " + between();
      const std::string sendPath = opText(ends.sends[k]) + ".send[" +
                                   std::to_string(ends.sends[k].send) + ']';
      if (send.length() != recv.length())
        throw PlanError(origin, sendPath,
                        message + " is " + std::to_string(send.length()) + " units long but " +
                            opText(ends.recvs[k]) + " receives " +
                            std::to_string(recv.length()) +
                            " (transfers are matched in program order per sender, receiver and "
                            "channel)");
      if (unitPhase(send) != unitPhase(recv))
        throw PlanError(origin, sendPath,
                        message + " sends units of phase " + std::to_string(unitPhase(send)) +
                            " but " + opText(ends.recvs[k]) + " stores them at phase " +
                            std::to_string(unitPhase(recv)) +
                            " (offset mod units per block must agree)");
    }
  }
}

}  // namespace collplan
