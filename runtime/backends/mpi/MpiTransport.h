// MpiTransport: a rank's connections as MPI point-to-point messages on its own duplicate of
// the user's communicator.
#pragma once

#include "runtime/backends/mpi/MpiNotices.h"
#include "runtime/backends/mpi/MpiQueues.h"
#include "runtime/exec/Transport.h"

#include <mpi.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

namespace collplan::mpi {

/// One rank of an mpi job (one MPI process). Transfers are MPI_Isend / MPI_Irecv on a
/// communicator duplicated from the user's (MPI_Comm_dup), so no message of the user's, or of
/// another collplan communicator, can match ours; its error handler is MPI_ERRORS_RETURN and
/// every failure is a RuntimeError naming the rank, the peer, the channel and MPI's reason.
///  - Each (peer, channel, direction) is a FIFO (MpiQueues.h) matched by tag: channel and
///    whether the message is a head or a body. The FIFO runs across calls, as the cpu
///    backends' do: receives are posted ahead for messages of calls not yet begun, so a tag
///    cannot name the call. Each head carries the call's CallSignature (its number on the
///    rank among the rest), so a message of another call is refused by its receiver.
///  - A value that stays put is sent from where it lies (peersCanRead: MPI reads it until the
///    send completes, and endCall waits for that); receives land in rank-private buffers
///    posted in advance.
///  - Sends go out as soon as the executor posts them; endCall waits until MPI has sent them
///    all (MPI_Test under the wait policy's backoff and timeout, never an unbounded MPI_Wait).
///  - Mismatched calls: a rank that refuses a message, or times out, tells every peer
///    (MpiNotices), so they fail too instead of waiting; a rank that waits for 0.1 s tells its
///    peers which call it is in, and one in the same call with other arguments fails (two
///    ranks that both think they are the root exchange no message that could show it).
class MpiTransport final : public Transport {
public:
  /// Duplicates `user`. Throws RuntimeError when MPI is not initialised or a call fails.
  MpiTransport(MPI_Comm user, WaitPolicy policy);
  ~MpiTransport() override;

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  const WaitPolicy &waitPolicy() const override { return policy_; }
  bool peersCanRead(BufferKind) const override { return true; }

  Connection connect(int peer, uint32_t channel, bool sending) override;
  void beginCall(const CallSignature &signature) override;
  std::byte *staging(size_t bytes) override;
  bool canPost(Connection c) override;
  void post(Connection c, const std::byte *data, size_t bytes) override;
  bool arrived(Connection c) override;
  const std::byte *acquire(Connection c, size_t bytes) override;
  void fetch(Connection c, size_t offset, size_t bytes, std::byte *dst) override;
  void release(Connection c) override;
  void endCall() override;
  std::string describe(Connection c) const override;

  /// Runs MPI's progress engine while a send this call posted is unfinished (a rendezvous
  /// message moves only inside its sender's MPI calls); no MPI call once they have finished.
  /// For a rank that waits on something else (HybridTransport: a peer on its node).
  void progressSends();
  /// Takes in peers' notices; announces this rank's call once per call; throws when a peer
  /// failed or is in this call with other arguments. Runs while the rank waits
  /// (WaitPolicy::check).
  void checkPeers();
  /// Tells every peer that this rank failed with `message` (once: later calls do nothing), so
  /// none of them waits for it. For failures found outside this transport (HybridTransport).
  void announceFailure(ErrorCode code, const std::string &message);
  /// The duplicate of the user's communicator this transport runs on.
  MPI_Comm comm() const { return comm_; }

private:
  struct Link {
    int peer = 0;
    uint32_t channel = 0;
    bool sending = false;
    std::unique_ptr<MpiSendQueue> out;
    std::unique_ptr<MpiRecvQueue> in;
    bool postedThisCall = false;
  };
  /// Tells the peers, then throws RuntimeError(code, message).
  [[noreturn]] void fail(ErrorCode code, const std::string &message);
  std::string rankText() const { return "rank " + std::to_string(rank_); }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int ranks_ = 0;
  uint32_t maxChannels_ = 0;
  WaitPolicy policy_;
  std::optional<MpiNotices> notices_;
  CallSignature signature_;
  uint64_t call_ = 0;  ///< calls begun
  /// False from beginCall until endCall returns: a transport destroyed while false saw a call
  /// fail, and peers' messages of that call may still be in flight to it.
  bool betweenCalls_ = true;
  bool announced_ = false;
  bool failureAnnounced_ = false;
  /// beginCall polls the peers' notices at most this often.
  static constexpr std::chrono::milliseconds kNoticePollInterval{1};
  std::chrono::steady_clock::time_point lastNoticePoll_{};
  std::vector<Link> links_;
  std::map<std::tuple<int, uint32_t, bool>, Connection> byEnds_;
  std::vector<Connection> postedThisCall_;
  struct FreeBytes {
    void operator()(std::byte *p) const;
  };
  std::unique_ptr<std::byte, FreeBytes> staging_;
  size_t stagingCapacity_ = 0;
};

}  // namespace collplan::mpi
