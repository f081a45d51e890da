// cpu-threads: N ranks as threads of one process; peers read each other's buffers directly.
#pragma once

#include "runtime/backends/cpu/FlagTransport.h"

#include <cstdlib>
#include <memory>
#include <vector>

namespace collplan {

/// The message FIFOs every rank of one cpu-threads world shares (heap memory of the process,
/// zero-filled on allocation and touched only where ranks talk).
class ThreadsShared {
public:
  explicit ThreadsShared(int ranks);
  ~ThreadsShared();
  ThreadsShared(const ThreadsShared &) = delete;
  ThreadsShared &operator=(const ThreadsShared &) = delete;
  int ranks() const { return ranks_; }
  FifoDirectory directory(int rank) const {
    return FifoDirectory::at(memory_ + size_t(rank) * directoryBytes_, capacity_);
  }
  std::atomic<uint64_t> &callBoard(int rank) const { return callBoard_[size_t(rank)]; }

private:
  int ranks_;
  uint32_t capacity_;
  size_t directoryBytes_;
  size_t mappedBytes_;
  std::byte *memory_;  ///< anonymous mapping: page-aligned, zero, allocated where touched
  std::unique_ptr<std::atomic<uint64_t>[]> callBoard_;  ///< one zero-initialised word per rank
};

/// One rank of a cpu-threads world. Every buffer is readable by peers (one address space), so
/// values that stay put are sent with zero copies; only values that are overwritten later, or
/// that live nowhere (a reduction that is only forwarded), are staged.
class ThreadsTransport final : public FlagTransport {
public:
  ThreadsTransport(std::shared_ptr<ThreadsShared> shared, int rank, WaitPolicy policy);
  bool peersCanRead(BufferKind) const override { return true; }

protected:
  FifoDirectory directoryOf(int sender) override { return shared_->directory(sender); }
  std::atomic<uint64_t> &callBoard(int rank) override { return shared_->callBoard(rank); }
  std::byte *reserveStaging(size_t bytes) override;
  void encode(const std::byte *data, size_t bytes, MessageSlot &slot) override;
  const std::byte *decode(int peer, const MessageSlot &slot) override;

private:
  struct Free {
    void operator()(std::byte *p) const { std::free(p); }
  };
  std::shared_ptr<ThreadsShared> shared_;
  std::unique_ptr<std::byte[], Free> staging_;
  size_t stagingCapacity_ = 0;
};

}  // namespace collplan
