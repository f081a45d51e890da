// DeviceCalls::submit: checks a rank's call against its device's other ranks' and launches them.
#include "runtime/api/DeviceCalls.h"
#include "runtime/core/Text.h"

#include "runtime/exec/RuntimeError.h"

#include <algorithm>

namespace collplan {
namespace {

[[noreturn]] void refuse(int rank, const std::string &why) {
  throw RuntimeError(ErrorCode::InvalidArgument,
                     "rank " + std::to_string(rank) + "'s call " + why +
                         ": the ranks of one device are launched together, one call each");
}

}  // namespace

void DeviceCalls::submit(int rank, const Plan &plan, const CallBuffers &call, DeviceStream stream) {
  const std::vector<int> &ranks = job_.ranksWith(rank);
  if (ranks.size() == 1) {  // nothing to wait for
    job_.enqueueDevice(rank, plan, {call}, stream);
    return;
  }
  std::lock_guard lock(mutex_);
  auto [entry, fresh] = pending_.try_emplace(ranks.front());
  Pending &p = entry->second;
  const size_t at = size_t(std::find(ranks.begin(), ranks.end(), rank) - ranks.begin());
  if (fresh) {
    p.plan = &plan;
    p.stream = stream;
    p.calls.assign(ranks.size(), CallBuffers{});
    p.made.assign(ranks.size(), false);
  } else {
    const CallBuffers &first = p.calls[size_t(std::find(p.made.begin(), p.made.end(), true) -
                                              p.made.begin())];
    if (p.made[at]) {
      std::vector<int> missing;
      for (size_t i = 0; i < ranks.size(); ++i)
        if (!p.made[i]) missing.push_back(ranks[i]);
      refuse(rank, "comes before ranks " + joined(missing) + " of its device made theirs");
    }
    if (call.count != first.count || call.dtype != first.dtype || call.op != first.op ||
        &plan != p.plan)
      refuse(rank, "differs from the call its device's other ranks made (another collective, "
                   "count, dtype or op)");
    if (stream != p.stream)
      refuse(rank, "is on another stream than its device's other ranks' calls");
  }
  p.calls[at] = call;
  p.made[at] = true;
  if (std::find(p.made.begin(), p.made.end(), false) != p.made.end()) return;
  const std::vector<CallBuffers> calls = std::move(p.calls);
  pending_.erase(ranks.front());
  job_.enqueueDevice(rank, plan, calls, stream);
}

void DeviceCalls::checkComplete() const {
  std::lock_guard lock(mutex_);
  for (const auto &[lowest, p] : pending_) {
    const std::vector<int> &ranks = job_.ranksWith(lowest);
    std::vector<int> made, missing;
    for (size_t i = 0; i < ranks.size(); ++i) (p.made[i] ? made : missing).push_back(ranks[i]);
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "the calls of ranks " + joined(made) + " wait for ranks " +
                           joined(missing) +
                           " of their device, which made none in the group: the ranks of one "
                           "device are launched together, one call each");
  }
}

}  // namespace collplan
