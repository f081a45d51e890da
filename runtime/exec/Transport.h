// Transport: what a backend provides the executor (connections per peer and channel, staging,
// post/arrive/acquire/release).
#pragma once

#include "runtime/core/Collective.h"
#include "runtime/exec/CallSignature.h"
#include "runtime/exec/Wait.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace collplan {

/// One end of the FIFO of messages from one rank to another on one channel (Plan.h: transfers
/// are matched per sender, receiver and channel in program order), as numbered by a transport.
using Connection = uint32_t;

/// What preparing a rank's program needs of a backend (PreparedProgram): its connections and
/// which of the rank's buffers peers read in place. Transport extends it with the calls; a
/// backend that runs programs on a device (cuda) implements only this part.
class ConnectionSource {
public:
  virtual ~ConnectionSource() = default;
  virtual int ranks() const = 0;
  /// Whether peers can read this rank's buffer of `kind` in place (a shared address space), so
  /// a send of a value that stays put may be posted without a copy into staging.
  virtual bool peersCanRead(BufferKind kind) const = 0;
  /// The connection for messages this rank sends to `peer` on `channel` (`sending`), or receives
  /// from `peer` on `channel`. Called while a program is prepared; the same arguments always
  /// give the same connection. Throws RuntimeError(Plan) when the backend has no room for
  /// another one.
  virtual Connection connect(int peer, uint32_t channel, bool sending) = 0;
};

/// One rank's end of a backend. The executor (Executor.h) interprets plan ops; a transport only
/// moves messages and synchronises. Nothing here blocks except endCall: the executor polls
/// (canPost, arrived) across its channels and backs off with waitPolicy() when nothing moves.
///
/// Per rank and per collective call (all ranks make the same calls in the same order):
///   beginCall(signature)     starts the next call; every message of it carries `signature`,
///                            and a message whose sender's signature differs is refused
///                            (RuntimeError naming both calls);
///   staging(bytes)           returns `bytes` of memory peers can read, where the executor
///                            materialises values it must send (once per call, after beginCall);
///   canPost(c) / post(c, ..) posts the next message of sending connection c, once fewer than
///                            kChannelDepth of its messages are unconsumed;
///   arrived(c) / acquire(c)  the next message of receiving connection c: readable data of
///                            exactly n bytes (RuntimeError when sizes disagree), or nullptr when
///                            it lives in another address space and must be copied with fetch();
///   release(c)               consumes that message: its sender may reuse the slot and memory;
///   endCall()                waits until every message this rank posted was consumed (or, a
///                            small one, copied out of the caller's memory when posted), so
///                            user buffers and staging may be reused once the call returns.
class Transport : public ConnectionSource {
public:
  virtual int rank() const = 0;
  /// How the executor waits when no channel can move, and when it gives up.
  virtual const WaitPolicy &waitPolicy() const = 0;
  /// The smallest value worth posting in place from the buffer [base, base + bytes) in this
  /// call (valid after beginCall): 0 where peers read it directly; a transport whose peers copy
  /// in-place data across address spaces (a system call per fetch) stages smaller values;
  /// SIZE_MAX: stage everything. `base` nullptr asks about memory private to the rank (the
  /// executor's scratch).
  virtual size_t inPlaceMinBytes(const void *base, size_t bytes) const {
    (void)base, (void)bytes;
    return 0;
  }
  /// Memory for the caller's buffers that peers read in place, or nullptr when this transport
  /// has no such memory (every buffer is alike). Throws RuntimeError(System) when out of memory.
  virtual void *allocateShared(size_t bytes) {
    (void)bytes;
    return nullptr;
  }
  /// Frees what allocateShared returned; false when `p` is not such an allocation.
  virtual bool freeShared(void *p) {
    (void)p;
    return false;
  }

  virtual void beginCall(const CallSignature &signature) = 0;
  virtual std::byte *staging(size_t bytes) = 0;
  virtual bool canPost(Connection c) = 0;
  virtual void post(Connection c, const std::byte *data, size_t bytes) = 0;
  virtual bool arrived(Connection c) = 0;
  virtual const std::byte *acquire(Connection c, size_t bytes) = 0;
  /// Copies bytes [offset, offset + bytes) of the message acquire() returned nullptr for.
  virtual void fetch(Connection c, size_t offset, size_t bytes, std::byte *dst) = 0;
  virtual void release(Connection c) = 0;
  virtual void endCall() = 0;
  /// "rank 2 (channel 1)", naming a connection's peer and channel for error messages.
  virtual std::string describe(Connection c) const = 0;
};

}  // namespace collplan
