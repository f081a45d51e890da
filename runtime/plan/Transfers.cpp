// planTransfers: both ends of every FIFO listed in program order, then paired.
#include "runtime/plan/Transfers.h"

#include <map>
#include <tuple>

namespace collplan {

std::vector<PlanTransfer> planTransfers(const Plan &plan) {
  struct Ends {
    std::vector<std::pair<OpRef, uint32_t>> sends;  // op and entry of its sends
    std::vector<OpRef> recvs;
  };
  std::map<std::tuple<int, int, uint32_t>, Ends> fifos;
  for (size_t r = 0; r < plan.programs.size(); ++r) {
    const std::vector<Channel> &channels = plan.programs[r].channels;
    for (uint32_t c = 0; c < channels.size(); ++c)
      for (uint32_t i = 0; i < channels[c].ops.size(); ++i) {
        const PlanOp &op = channels[c].ops[i];
        if (op.recv) fifos[{*op.recv, int(r), c}].recvs.push_back(OpRef{c, i});
        for (uint32_t k = 0; k < op.sends.size(); ++k)
          fifos[{int(r), op.sends[k], c}].sends.push_back({OpRef{c, i}, k});
      }
  }
  std::vector<PlanTransfer> out;
  for (const auto &[key, ends] : fifos) {
    const auto [sender, receiver, channel] = key;
    for (size_t k = 0; k < ends.sends.size() && k < ends.recvs.size(); ++k)
      out.push_back(PlanTransfer{sender, receiver, channel, uint32_t(k), ends.sends[k].first,
                                 ends.sends[k].second, ends.recvs[k]});
  }
  return out;
}

}  // namespace collplan
