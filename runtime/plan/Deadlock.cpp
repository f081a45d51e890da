// checkDeadlockFree: run every rank until it blocks on a recv whose send has not executed yet.
#include "runtime/plan/Deadlock.h"

#include <unordered_map>
#include <unordered_set>

namespace collplan {

DeadlockReport checkDeadlockFree(const Plan &plan) {
  const size_t numRanks = plan.programs.size();
  size_t totalOps = 0;
  for (const RankProgram &p : plan.programs) totalOps += p.ops.size();

  std::vector<size_t> pc(numRanks, 0);
  std::unordered_set<uint32_t> sent;
  sent.reserve(totalOps);
  std::unordered_multimap<uint32_t, size_t> waiting;  // transfer id -> blocked rank
  std::vector<size_t> runnable(numRanks);
  for (size_t r = 0; r < numRanks; ++r) runnable[r] = numRanks - 1 - r;  // rank 0 first

  while (!runnable.empty()) {
    const size_t rank = runnable.back();
    runnable.pop_back();
    const std::vector<PlanOp> &ops = plan.programs[rank].ops;
    while (pc[rank] < ops.size()) {
      const PlanOp &op = ops[pc[rank]];
      if (op.recv && !sent.count(op.recv->id)) {
        waiting.emplace(op.recv->id, rank);
        break;
      }
      for (const Endpoint &e : op.sends) {
        sent.insert(e.id);
        auto [begin, end] = waiting.equal_range(e.id);
        for (auto it = begin; it != end; ++it) runnable.push_back(it->second);
        waiting.erase(begin, end);
      }
      ++pc[rank];
    }
  }

  DeadlockReport report;
  report.totalRanks = int(numRanks);
  std::vector<int> stuckIndex(numRanks, -1);
  for (size_t r = 0; r < numRanks; ++r) {
    if (pc[r] == plan.programs[r].ops.size()) continue;
    const PlanOp &op = plan.programs[r].ops[pc[r]];
    stuckIndex[r] = int(report.stuck.size());
    report.stuck.push_back(StuckRank{int(r), pc[r], op.recv->peer, op.recv->id});
  }
  if (report.stuck.empty()) return report;

  // Each stuck rank waits on one peer: follow the chain from the first stuck rank until it
  // repeats (a cycle) or leaves the stuck set (the peer finished without sending).
  std::vector<int> visitOrder(numRanks, -1);
  std::vector<int> chain;
  int r = report.stuck.front().rank;
  while (r >= 0 && size_t(r) < numRanks && stuckIndex[r] >= 0 && visitOrder[r] < 0) {
    visitOrder[r] = int(chain.size());
    chain.push_back(r);
    r = report.stuck[size_t(stuckIndex[r])].waitingOn;
  }
  if (r >= 0 && size_t(r) < numRanks && visitOrder[r] >= 0)
    report.cycle.assign(chain.begin() + visitOrder[r], chain.end());
  return report;
}

const StuckRank &DeadlockReport::firstInCycle() const {
  if (!cycle.empty())
    for (const StuckRank &s : stuck)
      if (s.rank == cycle.front()) return s;
  return stuck.front();
}

std::string DeadlockReport::describe() const {
  if (stuck.empty()) return "no deadlock";
  constexpr size_t kListed = 8;
  std::string out = "deadlock: " + std::to_string(stuck.size()) + " of " +
                    std::to_string(totalRanks) + " ranks cannot finish: ";
  for (size_t i = 0; i < stuck.size() && i < kListed; ++i) {
    const StuckRank &s = stuck[i];
    if (i) out += "; ";
    out += "rank " + std::to_string(s.rank) + " waits at ops[" + std::to_string(s.opIndex) +
           "] for transfer " + std::to_string(s.transferId) + " from rank " +
           std::to_string(s.waitingOn);
  }
  if (stuck.size() > kListed) out += "; ... and " + std::to_string(stuck.size() - kListed) + " more";
  if (!cycle.empty()) {
    out += " (cycle: ";
    for (int r : cycle) out += std::to_string(r) + " -> ";
    out += std::to_string(cycle.front()) + ")";
  } else {
    out += " (no send ever executes for the first waiting rank's transfer)";
  }
  return out;
}

}  // namespace collplan
