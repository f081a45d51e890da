// FlagTransport: connections over per-(sender, receiver, channel) FIFOs in shared memory.
#include "runtime/backends/cpu/FlagTransport.h"

#include "runtime/exec/EnvSettings.h"
#include "runtime/exec/RuntimeError.h"

#include <cstring>
#include <string>

namespace collplan {
namespace {

uint64_t directoryKey(int receiver, uint32_t channel) {
  return (uint64_t(receiver) + 1) << 8 | channel;
}

size_t keysBytes(uint32_t capacity) {
  return (size_t(capacity) * sizeof(std::atomic<uint64_t>) + 63) & ~size_t(63);
}

}  // namespace

size_t FifoDirectory::bytesFor(uint32_t capacity) {
  return keysBytes(capacity) + size_t(capacity) * sizeof(MessageFifo);
}

FifoDirectory FifoDirectory::at(std::byte *base, uint32_t capacity) {
  FifoDirectory d;
  d.keys = reinterpret_cast<std::atomic<uint64_t> *>(base);
  d.fifos = reinterpret_cast<MessageFifo *>(base + keysBytes(capacity));
  d.capacity = capacity;
  return d;
}

MessageFifo *FifoDirectory::find(int receiver, uint32_t channel) {
  const uint64_t key = directoryKey(receiver, channel);
  const uint32_t mask = capacity - 1;
  uint32_t i = uint32_t((uint64_t(receiver) * 0x9E3779B1u + channel * 0x85EBCA77u) & mask);
  for (uint32_t probes = 0; probes < capacity; ++probes, i = (i + 1) & mask) {
    uint64_t seen = keys[i].load(std::memory_order_acquire);
    if (seen == 0 &&
        keys[i].compare_exchange_strong(seen, key, std::memory_order_acq_rel))
      return &fifos[i];
    if (seen == key) return &fifos[i];
  }
  return nullptr;
}

uint32_t fifoDirectoryCapacity(int ranks) {
  uint32_t capacity = 64;
  while (capacity < 1024 && capacity < uint32_t(ranks) * 8) capacity *= 2;
  return capacity;
}

namespace {

/// The board entry of a call: its signature with the call number plus one, so 0 means none.
uint64_t boardEntry(CallSignature signature) {
  ++signature.call;
  return signature.pack();
}

}  // namespace

FlagTransport::FlagTransport(int rank, int ranks, WaitPolicy policy)
    : rank_(rank), ranks_(ranks), policy_(alsoChecking(std::move(policy), [this] {
        // The call board first: a peer that found the mismatch may already have left the
        // job, and the mismatch, not its departure, is what went wrong.
        checkCallArguments();
      })),
      payloadMaxBytes_(size_t(unsignedFromEnv("COLLPLAN_EAGER_MAX", kSlotPayloadBytes,
                                              "a byte count from 0 to 256", kSlotPayloadBytes))) {}

Connection FlagTransport::connect(int peer, uint32_t channel, bool sending) {
  auto [it, fresh] = byEnds_.try_emplace({peer, channel, sending}, Connection(links_.size()));
  if (!fresh) return it->second;
  const int sender = sending ? rank_ : peer, receiver = sending ? peer : rank_;
  MessageFifo *fifo = directoryOf(sender).find(receiver, channel);
  if (!fifo) {
    byEnds_.erase(it);
    throw RuntimeError(ErrorCode::Plan,
                       "rank " + std::to_string(sender) + " sends on more (peer, channel) pairs " +
                           "than its " + std::to_string(directoryOf(sender).capacity) +
                           " message FIFOs hold (the plan sends to rank " +
                           std::to_string(receiver) + " on channel " + std::to_string(channel) +
                           ")");
  }
  Link link;
  link.fifo = fifo;
  link.peer = peer;
  link.channel = channel;
  link.sending = sending;
  // The counters hold what earlier transports of this rank (or the peer) did with the FIFO.
  link.count = sending ? fifo->posted.load(std::memory_order_relaxed)
                       : fifo->consumed.load(std::memory_order_relaxed);
  links_.push_back(link);
  return it->second;
}

void FlagTransport::beginCall(const CallSignature &signature) {
  ++call_;
  signature_ = signature;
  postedThisCall_.clear();
  callBoard(rank_).store(boardEntry(signature), std::memory_order_release);
}

void FlagTransport::checkCallArguments() {
  const uint64_t mine = boardEntry(signature_);
  const uint64_t myCall = CallSignature::unpack(mine).call;
  for (int peer = 0; peer < ranks_; ++peer) {
    const uint64_t theirs = callBoard(peer).load(std::memory_order_acquire);
    if (peer == rank_ || theirs == 0 || theirs == mine ||
        CallSignature::unpack(theirs).call != myCall)
      continue;  // the same call, or the peer is in another one (or none yet)
    CallSignature them = CallSignature::unpack(theirs);
    them.call = CallSignature::unpack(signature_.pack()).call;
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "rank " + std::to_string(rank_) + " and rank " + std::to_string(peer) +
                           " are in call " + std::to_string(them.call + 1) +
                           " with different arguments: " + signature_.differences(them, peer) +
                           " (every rank must make the same calls with the same arguments)");
  }
}

bool FlagTransport::canPost(Connection c) {
  const Link &link = links_[c];
  return link.count - link.fifo->consumed.load(std::memory_order_acquire) < kChannelDepth;
}

void FlagTransport::post(Connection c, const std::byte *data, size_t bytes) {
  Link &link = links_[c];
  MessageSlot &slot = link.fifo->slots[link.count % kChannelDepth];
  slot.inPayload = bytes > 0 && bytes <= payloadMaxBytes_;
  if (slot.inPayload)
    std::memcpy(slot.payload, data, bytes);
  else
    encode(data, bytes, slot);
  slot.bytes = bytes;
  slot.signature = signature_.pack();
  link.fifo->posted.store(++link.count, std::memory_order_release);
  if (!slot.inPayload) link.mustConsume = link.count;
  if (!link.postedThisCall) {
    link.postedThisCall = true;
    postedThisCall_.push_back(c);
  }
}

bool FlagTransport::arrived(Connection c) {
  const Link &link = links_[c];
  return link.fifo->posted.load(std::memory_order_acquire) > link.count;
}

const std::byte *FlagTransport::acquire(Connection c, size_t bytes) {
  const Link &link = links_[c];
  const MessageSlot &slot = link.fifo->slots[link.count % kChannelDepth];
  if (slot.signature != signature_.pack())
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "rank " + std::to_string(rank_) + " received from " + describe(c) +
                           " a message of another call: " +
                           signature_.differences(CallSignature::unpack(slot.signature),
                                                  link.peer) +
                           " (every rank must make the same calls with the same arguments)");
  if (slot.bytes != bytes)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "rank " + std::to_string(rank_) + " expected " + std::to_string(bytes) +
                           " bytes from " + describe(c) + " but it sent " +
                           std::to_string(slot.bytes) +
                           ": the ranks called the collective with different counts or dtypes");
  return slot.inPayload ? slot.payload : decode(link.peer, slot);
}

void FlagTransport::fetch(Connection c, size_t offset, size_t bytes, std::byte *dst) {
  const Link &link = links_[c];
  const MessageSlot &slot = link.fifo->slots[link.count % kChannelDepth];
  if (offset + bytes > slot.bytes)
    throw RuntimeError(ErrorCode::Internal, "rank " + std::to_string(rank_) + " fetched bytes [" +
                                                std::to_string(offset) + ", " +
                                                std::to_string(offset + bytes) + ") of a " +
                                                std::to_string(slot.bytes) + "-byte message");
  if (slot.inPayload)
    std::memcpy(dst, slot.payload + offset, bytes);
  else
    copyOut(link.peer, slot, offset, bytes, dst);
}

void FlagTransport::copyOut(int peer, const MessageSlot &, size_t, size_t, std::byte *) {
  throw RuntimeError(ErrorCode::Internal, "rank " + std::to_string(rank_) + ": the data of rank " +
                                              std::to_string(peer) +
                                              " is not addressable and this backend cannot copy it");
}

void FlagTransport::release(Connection c) {
  Link &link = links_[c];
  link.fifo->consumed.store(++link.count, std::memory_order_release);
}

void FlagTransport::endCall() {
  for (Connection c : postedThisCall_) {
    Link &link = links_[c];
    link.postedThisCall = false;
    if (!waitAtLeast(link.fifo->consumed, link.mustConsume, policy_)) timedOut(link);
  }
  postedThisCall_.clear();
}

std::string FlagTransport::describe(Connection c) const {
  const Link &link = links_[c];
  return "rank " + std::to_string(link.peer) + " (channel " + std::to_string(link.channel) + ")";
}

void FlagTransport::timedOut(const Link &link) const {
  throw RuntimeError(ErrorCode::Timeout,
                     "rank " + std::to_string(rank_) + " waited more than " +
                         std::to_string(policy_.timeout.count() / 1000.0) + " s in call " +
                         std::to_string(call_) + " for rank " + std::to_string(link.peer) +
                         " to consume its messages on channel " + std::to_string(link.channel) +
                         ": a peer did not make the same collective call, failed or exited "
                         "(set COLLPLAN_TIMEOUT_S to change the limit)");
}

}  // namespace collplan
