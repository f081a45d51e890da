// FlagTransport: the shared-memory flag protocol common to the cpu-threads and cpu-shm backends.
#pragma once

#include "runtime/exec/Transport.h"
#include "runtime/exec/Wait.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace collplan {

/// One send slot, owned by the sending rank, in memory every rank maps. Call numbers make the
/// flags monotonic, so slots are never reset: the sender stores `ready = call` (release) after
/// filling where/bytes/generation; the receiver waits for it (acquire), reads the data and stores
/// `consumed = call` (release); the sender's endCall waits for that (acquire). The two flags sit
/// on separate cache lines because different ranks write them.
struct alignas(64) FlagSlot {
  std::atomic<uint64_t> ready{0};
  uint64_t where = 0;       ///< backend-specific data location (pointer or staging offset)
  uint64_t bytes = 0;
  uint64_t generation = 0;  ///< cpu-shm: staging segment of `where`, or kInPlaceGeneration
  alignas(64) std::atomic<uint64_t> consumed{0};
};
static_assert(sizeof(FlagSlot) == 128, "FlagSlot: two cache lines");
static_assert(std::atomic<uint64_t>::is_always_lock_free, "flags must be address-free atomics");

class FlagTransport : public Transport {
public:
  FlagTransport(int rank, int ranks, uint32_t slotCapacity, WaitPolicy policy);

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  uint32_t slotCapacity() const override { return slotCapacity_; }

  void beginCall() override;
  std::byte *staging(size_t bytes) override { return reserveStaging(bytes); }
  void publish(int peer, uint32_t slot, const std::byte *data, size_t bytes) override;
  const std::byte *acquire(int peer, uint32_t slot, size_t bytes) override;
  void fetch(int peer, uint32_t slot, size_t offset, size_t bytes, std::byte *dst) override;
  void release(int peer, uint32_t slot) override;
  void endCall() override;

protected:
  /// Slot `slot` of rank `sender`'s array.
  virtual FlagSlot &slotOf(int sender, uint32_t slot) = 0;
  /// This rank's peer-readable staging of at least `bytes` (called between calls only).
  virtual std::byte *reserveStaging(size_t bytes) = 0;
  /// Describes `data` (this rank's memory) so a peer's decode() finds it.
  virtual void encode(const std::byte *data, size_t bytes, FlagSlot &slot) = 0;
  /// The address, in this process, of data a peer described in `slot`; nullptr when it must be
  /// copied out with copyOut().
  virtual const std::byte *decode(int peer, const FlagSlot &slot) = 0;
  /// Copies [offset, offset + bytes) of data a peer described in `slot` (decode gave nullptr).
  virtual void copyOut(int peer, const FlagSlot &slot, size_t offset, size_t bytes,
                       std::byte *dst);

  const int rank_;
  const int ranks_;
  const uint32_t slotCapacity_;
  const WaitPolicy policy_;
  /// Calls this rank has started. Flags compare against it, so a new transport for a rank whose
  /// slots were used before must continue the count (ThreadsTransport does).
  uint64_t call_ = 0;

private:
  [[noreturn]] void timedOut(const char *what, int peer, uint32_t slot) const;
  std::vector<uint32_t> published_;
};

}  // namespace collplan
