// HybridTransport: one rank of an mpi job whose peers on its node are reached through shared
// memory (the cpu-shm transport) and the others through MPI messages.
#pragma once

#include "runtime/backends/cpu/ShmBackend.h"
#include "runtime/backends/mpi/MpiNodes.h"
#include "runtime/backends/mpi/MpiTransport.h"

#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace collplan::mpi {

/// Each connection is routed once, when the program is prepared: a peer on this rank's node
/// (NodeLayout) goes through `node` (a ShmTransport of the node's ranks, numbered in rank
/// order), any other through `network` (MpiTransport). Both see every call, so a call's
/// signature, mismatches and timeouts are checked on both sides.
///  - Staging is the node transport's (shared memory, which MPI sends from as well), and a
///    value that stays put is published in place on both sides (peers on the node read it
///    directly or with one cross-memory copy; MPI sends it from the user's buffer).
///  - endCall drains MPI first (MPI only progresses while this rank calls it), then waits for
///    the node's peers, who need nothing of this rank to consume what it posted. A rank that
///    waits on its node's peers while MPI sends of its call are unfinished runs MPI's progress
///    at each poll, so a rendezvous message to another node is not held until the call ends.
///  - Waiting: where the machine's ranks fit its cores (and COLLPLAN_WAIT_SPINS is not set), a
///    waiting rank polls a while before it yields, as MPI's own progress does.
///  - Failures: an error on the node side is told to every rank through MPI's notices, so
///    ranks on other nodes fail at once too; while it waits, a rank watches both sides (dead
///    processes on the node, notices and stalled calls across the job).
class HybridTransport final : public Transport {
public:
  /// Collective over `user`'s ranks. `settings.sharedMemory` false, or a node of one rank,
  /// gives a transport whose connections all go through MPI.
  HybridTransport(MPI_Comm user, WaitPolicy policy, const NodeSettings &settings);
  ~HybridTransport() override;

  int rank() const override { return network_->rank(); }
  int ranks() const override { return network_->ranks(); }
  const WaitPolicy &waitPolicy() const override { return policy_; }
  bool peersCanRead(BufferKind) const override { return true; }
  size_t inPlaceMinBytes(const void *base, size_t bytes) const override;
  void *allocateShared(size_t bytes) override;
  bool freeShared(void *p) override;

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

  /// The job's nodes, as this transport found them.
  const NodeLayout &layout() const { return layout_; }
  /// Whether peers on this rank's node are reached through shared memory.
  bool sharedMemory() const { return node_ != nullptr; }
  /// The duplicate of the user's communicator the MPI side runs on.
  MPI_Comm comm() const { return network_->comm(); }

private:
  struct Route {
    bool onNode = false;
    Connection inner = 0;  ///< the connection on the side it goes through
    int peer = 0;
    uint32_t channel = 0;
  };
  /// Sets up the node's ShmTransport (node rank 0 first, then the others), all-or-none across
  /// the job.
  void openNode(MPI_Comm node, const WaitPolicy &policy);
  /// Peers on the node and the MPI notices, while this rank waits.
  void checkPeers();
  /// The MPI notices (a peer's failure, a mismatched call), remembering that they failed.
  void checkNetwork();
  /// The node's peers (dead or departed processes, a call with other arguments), if any.
  void checkNode();
  /// Runs `step` on the node transport; an error is told to every rank of the job, with the
  /// node's rank numbers translated, before it is thrown.
  template <typename Step>
  auto onNode(Step &&step) -> decltype(step());
  [[noreturn]] void nodeFailed(const RuntimeError &e);

  WaitPolicy policy_;
  std::unique_ptr<MpiTransport> network_;
  std::unique_ptr<ShmTransport> node_;
  NodeLayout layout_;
  std::vector<int> nodeRankOf_;  ///< by job rank: its rank on this rank's node, or -1
  std::vector<Route> routes_;
  std::map<std::pair<bool, Connection>, Connection> byInner_;  ///< (onNode, inner) to route
  bool failedOnNetwork_ = false;
};

}  // namespace collplan::mpi
