// MpiSendQueue and MpiRecvQueue: slots, head and body messages, bounded clean-up.
#include "runtime/backends/mpi/MpiQueues.h"

#include "runtime/backends/mpi/MpiError.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace collplan::mpi {

bool mpiActive() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

bool settle(std::vector<MPI_Request> &requests, bool cancel) {
  if (requests.empty() || !mpiActive()) return requests.empty();
  if (cancel)
    for (MPI_Request &r : requests)
      if (r != MPI_REQUEST_NULL) MPI_Cancel(&r);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (;;) {
    int done = 0;
    if (MPI_Testall(int(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE) !=
        MPI_SUCCESS)
      break;
    if (done) return true;
    if (std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (MPI_Request &r : requests)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  return false;
}

namespace {

/// Whether every request of `requests` completed (completed ones become MPI_REQUEST_NULL).
bool testAll(std::vector<MPI_Request> &requests, const Describe &describe) {
  if (requests.empty()) return true;
  int done = 0;
  checkMpi(MPI_Testall(int(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
           "MPI_Testall", describe);
  if (done) requests.clear();
  return done != 0;
}

}  // namespace

MpiSendQueue::MpiSendQueue(MPI_Comm comm, int peer, uint32_t channel, Describe describe)
    : comm_(comm), peer_(peer), channel_(channel), describe_(std::move(describe)) {}

MpiSendQueue::~MpiSendQueue() {
  if (!finish()) (void)buffers_.release();  // MPI may still read them
}

bool MpiSendQueue::finish() {
  std::vector<MPI_Request> pending;
  for (Slot &s : slots_) {
    for (MPI_Request r : s.requests)
      if (r != MPI_REQUEST_NULL) pending.push_back(r);
    s.requests.clear();
  }
  return settle(pending, /*cancel=*/false);
}

bool MpiSendQueue::complete(Slot &slot) { return testAll(slot.requests, describe_); }

bool MpiSendQueue::canPost() { return complete(slots_[posted_ % kChannelDepth]); }

void MpiSendQueue::post(const std::byte *data, size_t bytes, uint64_t signature) {
  if (!buffers_) buffers_.reset(new std::byte[kChannelDepth * kSlotBytes]);
  const size_t i = posted_ % kChannelDepth;
  std::byte *buffer = buffers_.get() + i * kSlotBytes;
  const MessageHeader header{signature, bytes};
  std::memcpy(buffer, &header, sizeof header);
  const size_t pieces = bodyPieces(bytes);
  const size_t headBytes = sizeof header + (pieces == 0 ? bytes : 0);
  if (pieces == 0 && bytes > 0) std::memcpy(buffer + sizeof header, data, bytes);
  Slot &slot = slots_[i];
  slot.requests.assign(1 + pieces, MPI_REQUEST_NULL);
  checkMpi(MPI_Isend(buffer, int(headBytes), MPI_BYTE, peer_, tagOf(channel_, TagKind::Head),
                     comm_, &slot.requests[0]),
           "MPI_Isend", describe_);
  for (size_t k = 0; k < pieces; ++k) {
    const size_t offset = k * kMaxPieceBytes;
    const size_t length = std::min(kMaxPieceBytes, bytes - offset);
    checkMpi(MPI_Isend(data + offset, int(length), MPI_BYTE, peer_,
                       tagOf(channel_, TagKind::Body), comm_, &slot.requests[1 + k]),
             "MPI_Isend", describe_);
  }
  ++posted_;
}

bool MpiSendQueue::drained() {
  for (Slot &s : slots_)
    if (!complete(s)) return false;
  return true;
}

MpiRecvQueue::MpiRecvQueue(MPI_Comm comm, int peer, uint32_t channel, Describe describe)
    : comm_(comm), peer_(peer), channel_(channel), describe_(std::move(describe)),
      buffers_(new std::byte[kChannelDepth * kSlotBytes]) {
  for (size_t i = 0; i < kChannelDepth; ++i) postHead(i);
}

MpiRecvQueue::~MpiRecvQueue() {
  std::vector<MPI_Request> pending;
  for (Slot &s : slots_) {
    if (s.head != MPI_REQUEST_NULL) pending.push_back(s.head);
    pending.insert(pending.end(), s.body.begin(), s.body.end());
  }
  if (!settle(pending, /*cancel=*/true)) {
    (void)buffers_.release();  // MPI may still write into them
    for (Slot &s : slots_) new std::vector<std::byte>(std::move(s.large));
  }
}

void MpiRecvQueue::postHead(size_t i) {
  Slot &slot = slots_[i];
  slot.headArrived = false;
  checkMpi(MPI_Irecv(slotBuffer(i), int(kSlotBytes), MPI_BYTE, peer_,
                     tagOf(channel_, TagKind::Head), comm_, &slot.head),
           "MPI_Irecv", describe_);
}

void MpiRecvQueue::postBody(Slot &slot, size_t bytes) {
  if (slot.large.size() < bytes) slot.large.resize(bytes);
  const size_t pieces = bodyPieces(bytes);
  slot.body.assign(pieces, MPI_REQUEST_NULL);
  for (size_t k = 0; k < pieces; ++k) {
    const size_t offset = k * kMaxPieceBytes;
    const size_t length = std::min(kMaxPieceBytes, bytes - offset);
    checkMpi(MPI_Irecv(slot.large.data() + offset, int(length), MPI_BYTE, peer_,
                       tagOf(channel_, TagKind::Body), comm_, &slot.body[k]),
             "MPI_Irecv", describe_);
  }
}

bool MpiRecvQueue::arrived() {
  Slot &slot = slots_[consumed_ % kChannelDepth];
  if (!slot.headArrived) {
    int done = 0;
    MPI_Status status;
    checkMpi(MPI_Test(&slot.head, &done, &status), "MPI_Test", describe_);
    if (!done) return false;
    int received = 0;
    MPI_Get_count(&status, MPI_BYTE, &received);
    readHeader(consumed_ % kChannelDepth, received);
    // Bodies are received in the order of their heads, which is the order they were sent.
    postBody(slot, slot.header.bytes);
  }
  return testAll(slot.body, describe_);
}

void MpiRecvQueue::readHeader(size_t i, int received) {
  Slot &slot = slots_[i];
  if (size_t(received) < sizeof(MessageHeader))
    throw RuntimeError(ErrorCode::Internal, describe_() + ": a message of " +
                                                std::to_string(received) +
                                                " bytes, shorter than a header");
  std::memcpy(&slot.header, slotBuffer(i), sizeof slot.header);
  const size_t inline_ = bodyPieces(slot.header.bytes) == 0 ? slot.header.bytes : 0;
  if (size_t(received) != sizeof(MessageHeader) + inline_)
    throw RuntimeError(ErrorCode::Internal,
                       describe_() + ": a message of " + std::to_string(received) +
                           " bytes whose header announces " + std::to_string(inline_) +
                           " inline bytes");
  slot.headArrived = true;
}

const MessageHeader &MpiRecvQueue::header() const {
  return slots_[consumed_ % kChannelDepth].header;
}

const std::byte *MpiRecvQueue::payload() const {
  const size_t i = consumed_ % kChannelDepth;
  if (bodyPieces(header().bytes) > 0) return slots_[i].large.data();
  return buffers_.get() + i * kSlotBytes + sizeof(MessageHeader);
}

void MpiRecvQueue::release() {
  postHead(consumed_ % kChannelDepth);
  ++consumed_;
}

}  // namespace collplan::mpi
