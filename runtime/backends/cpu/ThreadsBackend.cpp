// cpu-threads: heap slots shared by the ranks' threads, pointers published as-is.
#include "runtime/backends/cpu/ThreadsBackend.h"

#include "runtime/exec/RuntimeError.h"

#include <cstdint>
#include <string>

namespace collplan {

ThreadsShared::ThreadsShared(int ranks, uint32_t slotCapacity)
    : ranks_(ranks), slotCapacity_(slotCapacity),
      slots_(new FlagSlot[size_t(ranks) * slotCapacity]), calls_(size_t(ranks), 0) {}

ThreadsTransport::ThreadsTransport(std::shared_ptr<ThreadsShared> shared, int rank,
                                   WaitPolicy policy)
    : FlagTransport(rank, shared->ranks(), shared->slotCapacity(), policy),
      shared_(std::move(shared)) {
  call_ = shared_->callsMade(rank);
}

std::byte *ThreadsTransport::reserveStaging(size_t bytes) {
  if (bytes <= stagingCapacity_) return staging_.get();
  const size_t rounded = (bytes + 4095) & ~size_t(4095);
  void *p = std::aligned_alloc(4096, rounded);
  if (!p)
    throw RuntimeError(ErrorCode::System, "rank " + std::to_string(rank_) +
                                              ": out of memory allocating " +
                                              std::to_string(rounded) + " bytes of staging");
  staging_.reset(static_cast<std::byte *>(p));
  stagingCapacity_ = rounded;
  return staging_.get();
}

void ThreadsTransport::encode(const std::byte *data, size_t, FlagSlot &slot) {
  slot.where = uint64_t(reinterpret_cast<uintptr_t>(data));
}

const std::byte *ThreadsTransport::decode(int, const FlagSlot &slot) {
  return reinterpret_cast<const std::byte *>(uintptr_t(slot.where));
}

}  // namespace collplan
