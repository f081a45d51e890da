// fusedChainLengths: which recv_reduce ops of a channel run as one fused pass.
#include "runtime/plan/FusedChains.h"

#include <algorithm>

namespace collplan {
namespace {

/// Whether `op` can head a chain: it receives and reduces into one range, sends nothing and
/// waits for no other channel.
bool headsChain(const PlanOp &op) {
  return op.recv && op.numOperands() >= 2 && op.dsts.size() == 1 && op.sends.empty() &&
         op.after.empty();
}

/// Whether `next` folds one more message into `acc`, from a peer not among `peers` (two
/// messages of one connection arrive one after the other, so one pass cannot take both).
bool continuesChain(const PlanOp &next, const BufRef &acc, const std::vector<int32_t> &peers) {
  return next.recv && next.srcs.size() == 1 && next.srcs.front() == acc && next.recvPos == 1 &&
         next.dsts.size() == 1 && next.dsts.front() == acc && next.after.empty() &&
         std::find(peers.begin(), peers.end(), *next.recv) == peers.end();
}

/// Per channel, per op: whether another channel names it in `after`.
std::vector<std::vector<bool>> awaitedOps(const RankProgram &program) {
  std::vector<std::vector<bool>> awaited;
  for (const Channel &channel : program.channels) awaited.emplace_back(channel.ops.size(), false);
  for (const Channel &channel : program.channels)
    for (const PlanOp &op : channel.ops)
      for (const OpRef &dep : op.after)
        if (dep.channel < awaited.size() && dep.op < awaited[dep.channel].size())
          awaited[dep.channel][dep.op] = true;
  return awaited;
}

}  // namespace

std::vector<std::vector<uint32_t>> fusedChainLengths(const RankProgram &program) {
  const std::vector<std::vector<bool>> awaited = awaitedOps(program);
  std::vector<std::vector<uint32_t>> lengths;
  for (size_t c = 0; c < program.channels.size(); ++c) {
    const std::vector<PlanOp> &ops = program.channels[c].ops;
    std::vector<uint32_t> &length = lengths.emplace_back(ops.size(), 0);
    for (size_t i = 0; i < ops.size();) {
      size_t end = i + 1;
      if (headsChain(ops[i])) {
        const BufRef acc = ops[i].dsts.front();
        std::vector<int32_t> peers{*ops[i].recv};
        while (end < ops.size() && !awaited[c][end - 1] && continuesChain(ops[end], acc, peers)) {
          peers.push_back(*ops[end].recv);
          if (!ops[end++].sends.empty()) break;  // a send ends the chain: its value is final
        }
      }
      length[i] = uint32_t(end - i);
      i = end;
    }
  }
  return lengths;
}

}  // namespace collplan
