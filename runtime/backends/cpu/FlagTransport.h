// FlagTransport: the shared-memory message FIFOs common to the cpu-threads and cpu-shm backends.
#pragma once

#include "runtime/exec/Transport.h"
#include "runtime/plan/Plan.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace collplan {

/// Messages of at most this many bytes travel in their FIFO slot: the sender copies them there
/// when it posts and its call need not wait for the receiver to consume them (the data is no
/// longer the sender's memory). A small call then ends without the second hand-off of a
/// message published in place, as MPI's eager protocol does.
inline constexpr size_t kSlotPayloadBytes = 256;

/// What a posted message says about its data: backend-specific location, size, and for cpu-shm
/// the staging segment (or tag) the location refers to; or the data itself (`inPayload`).
struct MessageSlot {
  uint64_t where = 0;
  uint64_t bytes = 0;
  uint64_t generation = 0;
  uint64_t signature = 0;  ///< the sender's CallSignature, packed
  uint64_t inPayload = 0;  ///< 1: the data is `payload`, not where `where` says
  alignas(8) std::byte payload[kSlotPayloadBytes];
};

/// The FIFO of messages from one rank to another on one channel, in memory both map. Counters
/// only grow (over every call of the job), so nothing is ever reset: the sender fills
/// slots[posted % kChannelDepth] and stores `posted + 1` (release); the receiver waits for it
/// (acquire), reads the data and stores `consumed + 1` (release); the sender posts again only
/// while posted - consumed < kChannelDepth, and its endCall waits until every message it posted
/// outside the slots' payloads is consumed.
/// The two counters sit on separate cache lines because different ranks write them.
struct alignas(64) MessageFifo {
  std::atomic<uint64_t> posted{0};
  alignas(64) std::atomic<uint64_t> consumed{0};
  alignas(64) MessageSlot slots[kChannelDepth];
};
static_assert(sizeof(MessageFifo) == 128 + sizeof(MessageSlot) * kChannelDepth,
              "MessageFifo layout");
static_assert(std::atomic<uint64_t>::is_always_lock_free, "counters must be address-free atomics");

/// One sender's FIFOs, found by (receiver, channel) through an open-addressing directory that
/// both ends may fill (compare-and-swap on the key), so neither needs the other's program. Lives
/// in memory every rank of the job maps (zero-filled: every key empty, every counter 0).
struct FifoDirectory {
  std::atomic<uint64_t> *keys = nullptr;  ///< `capacity` keys: 0 = free, else receiver/channel
  MessageFifo *fifos = nullptr;           ///< fifos[i] belongs to keys[i]
  uint32_t capacity = 0;                  ///< a power of two

  /// Bytes of a directory of `capacity` entries (keys then FIFOs, FIFOs 64-byte aligned).
  static size_t bytesFor(uint32_t capacity);
  /// The directory laid out at `base` (bytesFor(capacity) bytes, 64-byte aligned).
  static FifoDirectory at(std::byte *base, uint32_t capacity);
  /// The FIFO to `receiver` on `channel`, claiming a free entry when it has none yet; nullptr
  /// when every entry is taken.
  MessageFifo *find(int receiver, uint32_t channel);
};

/// Entries of each rank's FIFO directory for a job of `ranks` ranks: room for every peer on 8
/// channels, at least 64 and at most 1024.
uint32_t fifoDirectoryCapacity(int ranks);

class FlagTransport : public Transport {
public:
  /// Waits under `policy`, and also check the call board while they go on.
  FlagTransport(int rank, int ranks, WaitPolicy policy);

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  const WaitPolicy &waitPolicy() const override { return policy_; }

  Connection connect(int peer, uint32_t channel, bool sending) override;
  void beginCall(const CallSignature &signature) override;
  std::byte *staging(size_t bytes) override { return reserveStaging(bytes); }
  bool canPost(Connection c) override;
  void post(Connection c, const std::byte *data, size_t bytes) override;
  bool arrived(Connection c) override;
  const std::byte *acquire(Connection c, size_t bytes) override;
  void fetch(Connection c, size_t offset, size_t bytes, std::byte *dst) override;
  void release(Connection c) override;
  void endCall() override;
  std::string describe(Connection c) const override;

  /// Throws InvalidArgument when a peer is in this rank's call with other arguments (another
  /// collective, dtype, reduction op or root), as the call board shows: such ranks would wait on
  /// each other until the timeout, since their plans need not exchange a single message.
  void checkCallArguments();

protected:
  /// Where `rank` publishes the call it is in: its CallSignature packed, with the call number
  /// plus one (0: no call yet). One word per rank in memory every rank of the job maps.
  virtual std::atomic<uint64_t> &callBoard(int rank) = 0;
  /// The FIFO directory of rank `sender`.
  virtual FifoDirectory directoryOf(int sender) = 0;
  /// This rank's peer-readable staging of at least `bytes` (called between calls only).
  virtual std::byte *reserveStaging(size_t bytes) = 0;
  /// Describes `data` (this rank's memory) so a peer's decode() finds it.
  virtual void encode(const std::byte *data, size_t bytes, MessageSlot &slot) = 0;
  /// The address, in this process, of data a peer described in `slot`; nullptr when it must be
  /// copied out with copyOut().
  virtual const std::byte *decode(int peer, const MessageSlot &slot) = 0;
  /// Copies [offset, offset + bytes) of data a peer described in `slot` (decode gave nullptr).
  virtual void copyOut(int peer, const MessageSlot &slot, size_t offset, size_t bytes,
                       std::byte *dst);

  const int rank_;
  const int ranks_;
  const WaitPolicy policy_;
  /// Calls this rank has started (for messages).
  uint64_t call_ = 0;

private:
  CallSignature signature_;  ///< of the current call
  struct Link {
    MessageFifo *fifo = nullptr;
    int peer = 0;
    uint32_t channel = 0;
    bool sending = false;
    uint64_t count = 0;          ///< messages posted (sending) or consumed (receiving) so far
    /// Sending: the count endCall waits for the receiver to consume, the last message posted
    /// outside a slot payload (those refer to the sender's memory).
    uint64_t mustConsume = 0;
    bool postedThisCall = false;
  };
  /// Messages of at most this many bytes travel in their slot (COLLPLAN_EAGER_MAX, default
  /// and at most kSlotPayloadBytes; 0: every message is read where it lies).
  const size_t payloadMaxBytes_;
  [[noreturn]] void timedOut(const Link &link) const;
  std::vector<Link> links_;
  std::map<std::tuple<int, uint32_t, bool>, Connection> byEnds_;
  std::vector<Connection> postedThisCall_;
};

}  // namespace collplan
