// MpiSendQueue and MpiRecvQueue: the two ends of one (sender, receiver, channel) FIFO over MPI.
#pragma once

#include "runtime/backends/mpi/MpiWire.h"
#include "runtime/plan/Plan.h"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace collplan::mpi {

/// Whether MPI calls may be made now (MPI_Init was called and MPI_Finalize was not).
bool mpiActive();

/// Lets `requests` finish, cancelling them first when `cancel` (receives nobody will consume),
/// for at most a second; true when all finished. Called where a queue or transport goes away:
/// a request still active then belongs to a failed job, and its memory must be leaked rather
/// than freed under MPI (each one left is handed to MPI with MPI_Request_free).
bool settle(std::vector<MPI_Request> &requests, bool cancel);

/// Says which connection an MPI failure happened on ("rank 0 sending to rank 1 (channel 2)").
using Describe = std::function<std::string()>;

/// A rank's sending end: at most kChannelDepth messages in flight, one slot each. A slot is
/// reused once MPI completed its sends (the data left the slot buffer and the sender's staging).
class MpiSendQueue {
public:
  MpiSendQueue(MPI_Comm comm, int peer, uint32_t channel, Describe describe);
  MpiSendQueue(const MpiSendQueue &) = delete;
  MpiSendQueue &operator=(const MpiSendQueue &) = delete;
  /// Waits (bounded) for sends still in flight; memory MPI may still read is leaked, not freed.
  ~MpiSendQueue();

  /// Whether the next message's slot is free.
  bool canPost();
  /// Sends `bytes` of `data`, which must stay unchanged until drained(): inline payloads are
  /// copied into the slot, larger ones are sent from `data` itself.
  void post(const std::byte *data, size_t bytes, uint64_t signature);
  /// Whether every message posted so far has been sent.
  bool drained();
  /// Lets the sends in flight finish (bounded, see settle); true when none is left. After
  /// false, the data handed to post() must never be freed.
  bool finish();

private:
  struct Slot {
    std::vector<MPI_Request> requests;  ///< the head, then the body pieces
  };
  bool complete(Slot &slot);

  MPI_Comm comm_;
  int peer_;
  uint32_t channel_;
  Describe describe_;
  uint64_t posted_ = 0;
  std::unique_ptr<std::byte[]> buffers_;  ///< kChannelDepth slot buffers, made on first post
  std::array<Slot, kChannelDepth> slots_;
};

/// A rank's receiving end: kChannelDepth head receives always posted (messages n .. n + depth
/// - 1 of the FIFO, n the next to consume), each into its slot buffer, so an inline message is
/// readable the moment MPI completes it; a larger body is received, once its head arrived,
/// into a buffer of the slot's that grows to the largest body seen.
class MpiRecvQueue {
public:
  MpiRecvQueue(MPI_Comm comm, int peer, uint32_t channel, Describe describe);
  MpiRecvQueue(const MpiRecvQueue &) = delete;
  MpiRecvQueue &operator=(const MpiRecvQueue &) = delete;
  /// Cancels the posted receives (bounded wait); memory MPI may still write is leaked.
  ~MpiRecvQueue();

  /// Whether the next message (head and body) has arrived.
  bool arrived();
  /// The next message's header and payload (after arrived()).
  const MessageHeader &header() const;
  const std::byte *payload() const;
  /// Consumes the next message: its slot's head receive is posted again, for the message
  /// kChannelDepth later.
  void release();

private:
  struct Slot {
    MPI_Request head = MPI_REQUEST_NULL;
    bool headArrived = false;
    MessageHeader header;  ///< copied out of the slot buffer once the head arrived
    std::vector<MPI_Request> body;
    std::vector<std::byte> large;
  };
  std::byte *slotBuffer(size_t i) { return buffers_.get() + i * kSlotBytes; }
  void postHead(size_t i);
  void postBody(Slot &slot, size_t bytes);
  /// Reads the header of slot `i`'s head, just arrived with `received` bytes in all.
  void readHeader(size_t i, int received);

  MPI_Comm comm_;
  int peer_;
  uint32_t channel_;
  Describe describe_;
  uint64_t consumed_ = 0;
  std::unique_ptr<std::byte[]> buffers_;
  std::array<Slot, kChannelDepth> slots_;
};

}  // namespace collplan::mpi
