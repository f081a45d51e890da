// MpiNotices: what the ranks of an mpi job tell each other besides the plan's messages: the
// call a stalled rank is in (the cpu backends' call board) and that a rank failed.
#pragma once

#include "runtime/exec/RuntimeError.h"

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace collplan::mpi {

/// One receive of a fixed-size notice from any peer is always posted (tag TagKind::Notice),
/// so notices cost nothing until a rank stalls or fails.
class MpiNotices {
public:
  MpiNotices(MPI_Comm comm, int rank, int ranks);
  MpiNotices(const MpiNotices &) = delete;
  MpiNotices &operator=(const MpiNotices &) = delete;
  ~MpiNotices();

  /// Tells every peer that this rank is in the call of board entry `entry` (CallSignature
  /// packed with the call number plus one), so a peer in the same call with other arguments
  /// can tell.
  void announce(uint64_t entry);
  /// Tells every peer that this rank failed with `message`, so none of them waits for it.
  void announceFailure(ErrorCode code, const std::string &message);
  /// Takes in what peers sent. Throws RuntimeError (with the failed rank's code) when a peer
  /// announced a failure.
  void poll();
  /// The last board entry `peer` announced (0: none yet).
  uint64_t announced(int peer) const { return board_[size_t(peer)]; }

private:
  static constexpr size_t kTextBytes = 1000;
  enum class Kind : int32_t { Call = 1, Failure = 2 };
  struct Notice {
    Kind kind = Kind::Call;
    int32_t code = 0;
    int32_t rank = 0;
    uint32_t length = 0;
    uint64_t entry = 0;
    char text[kTextBytes] = {};
  };
  struct Outgoing {
    Notice notice;
    std::vector<MPI_Request> requests;
  };
  void sendToPeers(const Notice &notice);
  void postReceive();
  /// Forgets notices MPI has sent.
  void prune();
  std::string where() const;

  MPI_Comm comm_;
  int rank_;
  int ranks_;
  Notice incoming_;
  MPI_Request receive_ = MPI_REQUEST_NULL;
  std::deque<Outgoing> outgoing_;  ///< deque: a notice's address stays put while MPI sends it
  std::vector<uint64_t> board_;
};

}  // namespace collplan::mpi
