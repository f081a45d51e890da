// MpiNotices: call announcements and failure notices between the ranks of an mpi job.
#include "runtime/backends/mpi/MpiNotices.h"

#include "runtime/backends/mpi/MpiError.h"
#include "runtime/backends/mpi/MpiQueues.h"
#include "runtime/backends/mpi/MpiWire.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace collplan::mpi {

MpiNotices::MpiNotices(MPI_Comm comm, int rank, int ranks)
    : comm_(comm), rank_(rank), ranks_(ranks), board_(size_t(ranks), 0) {
  postReceive();
}

MpiNotices::~MpiNotices() {
  std::vector<MPI_Request> receive{receive_};
  const bool received = settle(receive, /*cancel=*/true);
  std::vector<MPI_Request> sends;
  for (Outgoing &o : outgoing_) sends.insert(sends.end(), o.requests.begin(), o.requests.end());
  // Notices MPI may still read or write are leaked, not freed under it.
  if (!settle(sends, /*cancel=*/false) || !received)
    new std::deque<Outgoing>(std::move(outgoing_));
}

std::string MpiNotices::where() const {
  return "rank " + std::to_string(rank_) + " exchanging call notices";
}

void MpiNotices::postReceive() {
  checkMpi(MPI_Irecv(&incoming_, int(sizeof incoming_), MPI_BYTE, MPI_ANY_SOURCE,
                     tagOf(0, TagKind::Notice), comm_, &receive_),
           "MPI_Irecv", [&] { return where(); });
}

void MpiNotices::prune() {
  while (!outgoing_.empty()) {
    Outgoing &o = outgoing_.front();
    int done = 0;
    checkMpi(MPI_Testall(int(o.requests.size()), o.requests.data(), &done, MPI_STATUSES_IGNORE),
             "MPI_Testall", [&] { return where(); });
    if (!done) return;
    outgoing_.pop_front();
  }
}

void MpiNotices::sendToPeers(const Notice &notice) {
  prune();
  Outgoing &o = outgoing_.emplace_back();
  o.notice = notice;
  o.requests.reserve(size_t(ranks_));
  for (int peer = 0; peer < ranks_; ++peer) {
    if (peer == rank_) continue;
    MPI_Request &r = o.requests.emplace_back(MPI_REQUEST_NULL);
    checkMpi(MPI_Isend(&o.notice, int(sizeof o.notice), MPI_BYTE, peer, tagOf(0, TagKind::Notice),
                       comm_, &r),
             "MPI_Isend", [&] { return where(); });
  }
}

void MpiNotices::announce(uint64_t entry) {
  Notice n;
  n.kind = Kind::Call;
  n.rank = rank_;
  n.entry = entry;
  sendToPeers(n);
}

void MpiNotices::announceFailure(ErrorCode code, const std::string &message) {
  Notice n;
  n.kind = Kind::Failure;
  n.code = int32_t(code);
  n.rank = rank_;
  n.length = uint32_t(std::min(message.size(), kTextBytes));
  std::memcpy(n.text, message.data(), n.length);
  try {
    sendToPeers(n);
  } catch (const RuntimeError &) {
    // The failure being reported matters more than the failure to report it.
  }
}

void MpiNotices::poll() {
  for (;;) {
    int done = 0;
    checkMpi(MPI_Test(&receive_, &done, MPI_STATUS_IGNORE), "MPI_Test", [&] { return where(); });
    if (!done) return;
    const Notice n = incoming_;
    postReceive();
    if (n.rank < 0 || n.rank >= ranks_ || n.length > kTextBytes ||
        (n.kind == Kind::Failure && (n.code < int32_t(ErrorCode::InvalidArgument) ||
                                     n.code > int32_t(ErrorCode::Internal))))
      throw RuntimeError(ErrorCode::Internal, where() + ": a malformed notice");
    if (n.kind == Kind::Call) {
      board_[size_t(n.rank)] = n.entry;
      continue;
    }
    throw RuntimeError(ErrorCode(n.code),
                       "rank " + std::to_string(rank_) + " stops because rank " +
                           std::to_string(n.rank) + " failed: " + std::string(n.text, n.length));
  }
}

}  // namespace collplan::mpi
