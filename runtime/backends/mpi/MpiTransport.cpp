// MpiTransport: connections, calls, acquire checks, the drain at the end of a call.
#include "runtime/backends/mpi/MpiTransport.h"

#include "runtime/backends/mpi/MpiError.h"

#include <chrono>
#include <cstdlib>
#include <utility>

namespace collplan::mpi {
namespace {

/// The board entry of a call: its signature with the call number plus one, so 0 means none.
uint64_t boardEntry(CallSignature signature) {
  ++signature.call;
  return signature.pack();
}

const std::byte kEmpty[1] = {};

}  // namespace

void MpiTransport::FreeBytes::operator()(std::byte *p) const { std::free(p); }

MpiTransport::MpiTransport(MPI_Comm user, WaitPolicy policy)
    : policy_(alsoChecking(std::move(policy), [this] { checkPeers(); })) {
  if (!mpiActive())
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "the mpi backend needs MPI initialised: call MPI_Init before creating "
                       "the communicator, and MPI_Finalize only after destroying it");
  auto context = [] { return std::string("creating an mpi communicator"); };
  checkMpi(MPI_Comm_dup(user, &comm_), "MPI_Comm_dup", context);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  checkMpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank", context);
  checkMpi(MPI_Comm_size(comm_, &ranks_), "MPI_Comm_size", context);
  int *tagUpperBound = nullptr, found = 0;
  checkMpi(MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tagUpperBound, &found), "MPI_Comm_get_attr",
           context);
  maxChannels_ = channelsWithin(found && tagUpperBound ? *tagUpperBound : 32767);
  notices_.emplace(comm_, rank_, ranks_);
}

MpiTransport::~MpiTransport() {
  bool sent = mpiActive();
  if (sent)
    for (Link &link : links_)
      if (link.out && !link.out->finish()) sent = false;
  if (!sent) (void)staging_.release();  // MPI may still read sends staged there
  links_.clear();
  notices_.reset();
  // After a failed call, messages peers sent on comm_ may never be received. A freed
  // communicator's context id is reused by the next MPI_Comm_dup, where such a message would
  // match a receive of an unrelated call; so a failed transport's communicator is never freed
  // (one communicator handle per failed collplan communicator).
  if (mpiActive() && sent && betweenCalls_) MPI_Comm_free(&comm_);
}

Connection MpiTransport::connect(int peer, uint32_t channel, bool sending) {
  if (peer < 0 || peer >= ranks_ || peer == rank_)
    throw RuntimeError(ErrorCode::Plan, rankText() + " cannot connect to rank " +
                                            std::to_string(peer) + " of " +
                                            std::to_string(ranks_));
  if (channel >= maxChannels_)
    throw RuntimeError(ErrorCode::Plan,
                       rankText() + ": channel " + std::to_string(channel) + " needs an MPI tag " +
                           "above this MPI's MPI_TAG_UB (at most " +
                           std::to_string(maxChannels_) + " channels)");
  auto [it, fresh] = byEnds_.try_emplace({peer, channel, sending}, Connection(links_.size()));
  if (!fresh) return it->second;
  const Connection c = it->second;
  Link &link = links_.emplace_back();
  link.peer = peer;
  link.channel = channel;
  link.sending = sending;
  auto where = [this, c] {
    const Link &l = links_[c];
    return rankText() + (l.sending ? " sending to " : " receiving from ") + describe(c);
  };
  if (sending)
    link.out = std::make_unique<MpiSendQueue>(comm_, peer, channel, where);
  else
    link.in = std::make_unique<MpiRecvQueue>(comm_, peer, channel, where);
  return c;
}

void MpiTransport::beginCall(const CallSignature &signature) {
  ++call_;
  betweenCalls_ = false;
  signature_ = signature;
  announced_ = false;
  postedThisCall_.clear();
  // A peer's failure since the last call ends this one at once. MPI_Test runs MPI's progress
  // engine (a microsecond or more, measured: most of a small call on shared memory), so calls
  // that follow each other faster leave it to the waits, which check every checkEvery.
  const auto now = std::chrono::steady_clock::now();
  if (now - lastNoticePoll_ >= kNoticePollInterval) {
    lastNoticePoll_ = now;
    notices_->poll();
  }
}

std::byte *MpiTransport::staging(size_t bytes) {
  if (bytes <= stagingCapacity_) return staging_.get();
  const size_t rounded = (bytes + 4095) & ~size_t(4095);
  void *p = std::aligned_alloc(4096, rounded);
  if (!p)
    throw RuntimeError(ErrorCode::System, rankText() + ": out of memory allocating " +
                                              std::to_string(rounded) + " bytes of staging");
  staging_.reset(static_cast<std::byte *>(p));  // the last call's sends completed in endCall
  stagingCapacity_ = rounded;
  return staging_.get();
}

bool MpiTransport::canPost(Connection c) { return links_[c].out->canPost(); }

void MpiTransport::post(Connection c, const std::byte *data, size_t bytes) {
  Link &link = links_[c];
  link.out->post(data, bytes, signature_.pack());
  if (!link.postedThisCall) {
    link.postedThisCall = true;
    postedThisCall_.push_back(c);
  }
}

bool MpiTransport::arrived(Connection c) { return links_[c].in->arrived(); }

void MpiTransport::progressSends() {
  // One MPI call progresses every request: stop at the first queue that made one.
  for (Connection c : postedThisCall_)
    if (!links_[c].out->drained()) return;
}

const std::byte *MpiTransport::acquire(Connection c, size_t bytes) {
  const Link &link = links_[c];
  const MessageHeader &header = link.in->header();
  if (header.signature != signature_.pack())
    fail(ErrorCode::InvalidArgument,
         rankText() + " received from " + describe(c) + " a message of another call: " +
             signature_.differences(CallSignature::unpack(header.signature), link.peer) +
             " (every rank must make the same calls with the same arguments)");
  if (header.bytes != bytes)
    fail(ErrorCode::InvalidArgument,
         rankText() + " expected " + std::to_string(bytes) + " bytes from " + describe(c) +
             " but it sent " + std::to_string(header.bytes) +
             ": the ranks called the collective with different counts or dtypes");
  return bytes == 0 ? kEmpty : link.in->payload();
}

void MpiTransport::fetch(Connection c, size_t, size_t, std::byte *) {
  throw RuntimeError(ErrorCode::Internal, rankText() + ": fetch from " + describe(c) +
                                              ", but every mpi message is received whole");
}

void MpiTransport::release(Connection c) { links_[c].in->release(); }

void MpiTransport::endCall() {
  Backoff backoff(policy_);
  for (Connection c : postedThisCall_) {
    Link &link = links_[c];
    while (!link.out->drained())
      if (!backoff.pause())
        fail(ErrorCode::Timeout,
             rankText() + " waited more than " + std::to_string(policy_.timeout.count() / 1000.0) +
                 " s in call " + std::to_string(call_) + " for " + describe(c) +
                 " to receive its messages: a peer did not make the same collective call, "
                 "failed or exited (set COLLPLAN_TIMEOUT_S to change the limit)");
    link.postedThisCall = false;
  }
  postedThisCall_.clear();
  betweenCalls_ = true;
}

std::string MpiTransport::describe(Connection c) const {
  const Link &link = links_[c];
  return "rank " + std::to_string(link.peer) + " (channel " + std::to_string(link.channel) + ")";
}

void MpiTransport::checkPeers() {
  notices_->poll();
  const uint64_t mine = boardEntry(signature_);
  if (!announced_) {
    announced_ = true;
    notices_->announce(mine);
  }
  const uint64_t myCall = CallSignature::unpack(mine).call;
  for (int peer = 0; peer < ranks_; ++peer) {
    const uint64_t theirs = notices_->announced(peer);
    if (peer == rank_ || theirs == 0 || theirs == mine ||
        CallSignature::unpack(theirs).call != myCall)
      continue;  // the same call, or the peer is in another one (or none yet)
    CallSignature them = CallSignature::unpack(theirs);
    them.call = signature_.call;
    fail(ErrorCode::InvalidArgument,
         rankText() + " and rank " + std::to_string(peer) + " are in call " +
             std::to_string(CallSignature::unpack(signature_.pack()).call + 1) +
             " with different arguments: " + signature_.differences(them, peer) +
             " (every rank must make the same calls with the same arguments)");
  }
}

void MpiTransport::announceFailure(ErrorCode code, const std::string &message) {
  if (std::exchange(failureAnnounced_, true)) return;
  notices_->announceFailure(code, message);
}

void MpiTransport::fail(ErrorCode code, const std::string &message) {
  announceFailure(code, message);
  throw RuntimeError(code, message);
}

}  // namespace collplan::mpi
