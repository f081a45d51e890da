// cpu-threads: N ranks as threads of one process; peers read each other's buffers directly.
#pragma once

#include "runtime/backends/cpu/FlagTransport.h"

#include <cstdlib>
#include <memory>
#include <vector>

namespace collplan {

/// The slots every rank of one cpu-threads world shares (heap memory of the process).
class ThreadsShared {
public:
  ThreadsShared(int ranks, uint32_t slotCapacity);
  int ranks() const { return ranks_; }
  uint32_t slotCapacity() const { return slotCapacity_; }
  FlagSlot &slot(int rank, uint32_t index) {
    return slots_[size_t(rank) * slotCapacity_ + index];
  }
  /// Calls rank `rank` made with earlier communicators: a new one continues from there, since
  /// the slots' flags still hold those call numbers.
  uint64_t &callsMade(int rank) { return calls_[size_t(rank)]; }

private:
  int ranks_;
  uint32_t slotCapacity_;
  std::unique_ptr<FlagSlot[]> slots_;
  std::vector<uint64_t> calls_;
};

/// One rank of a cpu-threads world. Every buffer is readable by peers (one address space), so
/// values that stay put are sent with zero copies; only values that are overwritten later, or
/// that live nowhere (a reduction that is only forwarded), are staged.
class ThreadsTransport final : public FlagTransport {
public:
  ThreadsTransport(std::shared_ptr<ThreadsShared> shared, int rank, WaitPolicy policy);
  ~ThreadsTransport() override { shared_->callsMade(rank_) = call_; }
  bool peersCanRead(BufferKind) const override { return true; }

protected:
  FlagSlot &slotOf(int sender, uint32_t slot) override { return shared_->slot(sender, slot); }
  std::byte *reserveStaging(size_t bytes) override;
  void encode(const std::byte *data, size_t bytes, FlagSlot &slot) override;
  const std::byte *decode(int peer, const FlagSlot &slot) override;

private:
  struct Free {
    void operator()(std::byte *p) const { std::free(p); }
  };
  std::shared_ptr<ThreadsShared> shared_;
  std::unique_ptr<std::byte[], Free> staging_;
  size_t stagingCapacity_ = 0;
};

}  // namespace collplan
