// FlagTransport: publish/acquire/release/drain over acquire-release flags in shared memory.
#include "runtime/backends/cpu/FlagTransport.h"

#include "runtime/exec/RuntimeError.h"

#include <string>

namespace collplan {

FlagTransport::FlagTransport(int rank, int ranks, uint32_t slotCapacity, WaitPolicy policy)
    : rank_(rank), ranks_(ranks), slotCapacity_(slotCapacity), policy_(policy) {
  published_.reserve(64);
}

void FlagTransport::beginCall() {
  ++call_;
  published_.clear();
}

void FlagTransport::publish(int peer, uint32_t slot, const std::byte *data, size_t bytes) {
  FlagSlot &s = slotOf(rank_, slot);
  encode(data, bytes, s);
  s.bytes = bytes;
  s.ready.store(call_, std::memory_order_release);
  published_.push_back(slot);
}

const std::byte *FlagTransport::acquire(int peer, uint32_t slot, size_t bytes) {
  FlagSlot &s = slotOf(peer, slot);
  if (!waitAtLeast(s.ready, call_, policy_)) timedOut("data", peer, slot);
  if (s.ready.load(std::memory_order_relaxed) != call_)
    throw RuntimeError(ErrorCode::Internal, "rank " + std::to_string(rank_) + ": slot " +
                                                std::to_string(slot) + " of rank " +
                                                std::to_string(peer) + " is ahead of call " +
                                                std::to_string(call_));
  if (s.bytes != bytes)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "rank " + std::to_string(rank_) + " expected " + std::to_string(bytes) +
                           " bytes from rank " + std::to_string(peer) + " but it sent " +
                           std::to_string(s.bytes) +
                           ": the ranks called the collective with different counts or dtypes");
  return decode(peer, s);
}

void FlagTransport::fetch(int peer, uint32_t slot, size_t offset, size_t bytes, std::byte *dst) {
  const FlagSlot &s = slotOf(peer, slot);
  if (offset + bytes > s.bytes)
    throw RuntimeError(ErrorCode::Internal, "rank " + std::to_string(rank_) + " fetched bytes [" +
                                                std::to_string(offset) + ", " +
                                                std::to_string(offset + bytes) + ") of a " +
                                                std::to_string(s.bytes) + "-byte value");
  copyOut(peer, s, offset, bytes, dst);
}

void FlagTransport::copyOut(int peer, const FlagSlot &, size_t, size_t, std::byte *) {
  throw RuntimeError(ErrorCode::Internal, "rank " + std::to_string(rank_) + ": the data of rank " +
                                              std::to_string(peer) +
                                              " is not addressable and this backend cannot copy it");
}

void FlagTransport::release(int peer, uint32_t slot) {
  slotOf(peer, slot).consumed.store(call_, std::memory_order_release);
}

void FlagTransport::endCall() {
  for (uint32_t slot : published_)
    if (!waitAtLeast(slotOf(rank_, slot).consumed, call_, policy_))
      timedOut("the release of", -1, slot);
  published_.clear();
}

void FlagTransport::timedOut(const char *what, int peer, uint32_t slot) const {
  const std::string who = peer >= 0 ? "rank " + std::to_string(peer) : std::string("a peer");
  throw RuntimeError(ErrorCode::Timeout,
                     "rank " + std::to_string(rank_) + " waited more than " +
                         std::to_string(policy_.timeout.count() / 1000.0) + " s for " + what +
                         " transfer slot " + std::to_string(slot) + " from " + who + " in call " +
                         std::to_string(call_) +
                         ": a peer did not make the same collective call, failed or exited "
                         "(set COLLPLAN_TIMEOUT_S to change the limit)");
}

}  // namespace collplan
