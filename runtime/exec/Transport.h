// Transport: what a backend provides the executor (peer-readable staging, publish/acquire/release).
#pragma once

#include "runtime/core/Collective.h"

#include <cstddef>
#include <cstdint>

namespace collplan {

/// One rank's end of a backend. The executor (Executor.h) interprets plan ops; a transport only
/// moves messages and synchronises. Every send of a call has a slot number, dense per sending
/// rank (0, 1, ... in program order); the receiver names the sender and that slot.
///
/// Call protocol, per rank and per collective call (all ranks make the same calls in the same
/// order, so call numbers agree):
///   beginCall()              starts the next call;
///   staging(bytes)           returns `bytes` of memory peers can read, where the executor
///                            materialises values it must send (once per call, after beginCall);
///   publish(peer, slot, ..)  makes data visible to `peer` without waiting for it;
///   acquire(peer, slot, n)   waits for the peer's publish of this call and returns readable
///                            data of exactly n bytes (RuntimeError when sizes disagree), or
///                            nullptr when the data lives in another address space and must be
///                            copied out with fetch();
///   fetch(peer, slot, ..)    copies a byte range of an acquired value into local memory;
///   release(peer, slot)      tells the sender its data was consumed;
///   endCall()                waits until every slot this rank published was released, so user
///                            buffers and staging may be reused once the call returns.
class Transport {
public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  /// Most sends one rank may make in one call (plans with more are rejected up front).
  virtual uint32_t slotCapacity() const = 0;
  /// Whether peers can read this rank's buffer of `kind` in place (a shared address space), so
  /// a send of a value that stays put may be published without a copy into staging.
  virtual bool peersCanRead(BufferKind kind) const = 0;
  /// The smallest value worth publishing in place from the buffer [base, base + bytes) in this
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

  virtual void beginCall() = 0;
  virtual std::byte *staging(size_t bytes) = 0;
  virtual void publish(int peer, uint32_t slot, const std::byte *data, size_t bytes) = 0;
  virtual const std::byte *acquire(int peer, uint32_t slot, size_t bytes) = 0;
  /// Copies bytes [offset, offset + bytes) of the value acquire() returned nullptr for to `dst`.
  virtual void fetch(int peer, uint32_t slot, size_t offset, size_t bytes, std::byte *dst) = 0;
  virtual void release(int peer, uint32_t slot) = 0;
  virtual void endCall() = 0;
};

}  // namespace collplan
