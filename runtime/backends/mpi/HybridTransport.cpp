// HybridTransport: routing connections to the node's shared memory or to MPI, and keeping both
// sides' calls, waits and failures in step.
#include "runtime/backends/mpi/HybridTransport.h"

#include "runtime/backends/cpu/ShmJobId.h"
#include "runtime/backends/mpi/MpiAgreement.h"
#include "runtime/backends/mpi/MpiError.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace collplan::mpi {
namespace {

/// Rank 0 of `node` draws a cpu-shm job name and nonce; every rank of `node` gets them.
std::pair<std::string, uint64_t> nodeJobName(MPI_Comm node, int nodeRank) {
  auto context = [] { return std::string("the mpi backend naming its node's shared memory"); };
  char name[64] = {};
  uint64_t nonce = 0;
  if (nodeRank == 0) {
    const std::string drawn = defaultJobName("mpi-");
    std::strncpy(name, drawn.c_str(), sizeof name - 1);
    nonce = newJobNonce();
  }
  checkMpi(MPI_Bcast(name, sizeof name, MPI_CHAR, 0, node), "MPI_Bcast", context);
  checkMpi(MPI_Bcast(&nonce, 1, MPI_UINT64_T, 0, node), "MPI_Bcast", context);
  return {name, nonce};
}

/// Polls a waiting rank does before it yields when the node's ranks have a core each (MPI's
/// own progress polls without end): measured on 2 ranks of a 2-core machine, an 8 B allreduce
/// took 2.2-2.5 us yielding at once and 0.7 us polling 64 or 256 times first.
constexpr int kDedicatedCoreSpins = 256;

}  // namespace

HybridTransport::HybridTransport(MPI_Comm user, WaitPolicy policy, const NodeSettings &settings) {
  NodeSplit split = splitByNode(user, settings);
  struct FreeNode {
    MPI_Comm &node;
    ~FreeNode() {
      if (mpiActive()) MPI_Comm_free(&node);
    }
  } freeNode{split.node};
  layout_ = std::move(split.layout);
  policy = pollingWhenRanksFit(std::move(policy), split.machineRanks,
                               std::thread::hardware_concurrency(), kDedicatedCoreSpins);
  policy_ = alsoChecking(policy, [this] { checkPeers(); });
  // The MPI side also watches the node's peers while it drains (its own notices it checks
  // itself).
  network_ =
      std::make_unique<MpiTransport>(user, alsoChecking(policy, [this] { checkNode(); }));
  nodeRankOf_.assign(size_t(ranks()), -1);
  const std::vector<int> &mine = layout_.ranksOf[size_t(layout_.nodeOf[size_t(rank())])];
  for (size_t i = 0; i < mine.size(); ++i) nodeRankOf_[size_t(mine[i])] = int(i);
  // Every rank decides alike: the settings come from mpirun's environment, and a rank alone
  // on its node has no peer to share memory with.
  SetUpOutcome outcome;
  if (settings.sharedMemory && mine.size() > 1) {
    try {
      openNode(split.node, policy);
    } catch (const RuntimeError &e) {
      outcome = {e.what(), e.code()};
    }
  }
  agreeOnSetUp(network_->comm(), outcome, "setting up shared memory on the mpi job's nodes");
}

HybridTransport::~HybridTransport() = default;

void HybridTransport::openNode(MPI_Comm node, const WaitPolicy &policy) {
  int nodeRank = 0, nodeRanks = 0;
  auto context = [] { return std::string("the mpi backend opening its node's shared memory"); };
  checkMpi(MPI_Comm_rank(node, &nodeRank), "MPI_Comm_rank", context);
  checkMpi(MPI_Comm_size(node, &nodeRanks), "MPI_Comm_size", context);
  const auto [job, nonce] = nodeJobName(node, nodeRank);
  // Node rank 0 creates the job's control segment; the others open it only once it exists,
  // so none of them waits for a rank 0 that failed.
  const WaitPolicy nodePolicy = alsoChecking(policy, [this] { checkNetwork(); });
  SetUpOutcome created;
  if (nodeRank == 0) {
    try {
      node_ = std::make_unique<ShmTransport>(job, 0, nodeRanks, nodePolicy, nonce);
    } catch (const RuntimeError &e) {
      created = {e.what(), e.code()};
    }
  }
  const std::vector<std::string> outcome = allGatherText(node, created.error);
  if (!outcome[0].empty()) {
    if (nodeRank == 0) throw RuntimeError(created.code, created.error);
    throw RuntimeError(ErrorCode::System, "the node's rank 0 could not create its shared memory: " +
                                              outcome[0]);
  }
  if (nodeRank != 0)
    node_ = std::make_unique<ShmTransport>(job, nodeRank, nodeRanks, nodePolicy, nonce);
}

void HybridTransport::checkNetwork() {
  try {
    network_->checkPeers();
  } catch (...) {
    failedOnNetwork_ = true;
    throw;
  }
}

void HybridTransport::checkNode() {
  if (node_) onNode([&] {
      node_->checkPeers();
      node_->checkCallArguments();
    });
}

void HybridTransport::checkPeers() {
  checkNetwork();
  checkNode();
}

template <typename Step>
auto HybridTransport::onNode(Step &&step) -> decltype(step()) {
  try {
    return step();
  } catch (const RuntimeError &e) {
    nodeFailed(e);
  }
}

void HybridTransport::nodeFailed(const RuntimeError &e) {
  if (failedOnNetwork_) throw;  // the MPI side found it, and peers know
  if (e.code() == ErrorCode::System) {
    // A peer on the node that left or died may have told every rank why through MPI just
    // before (a failed call is announced before the communicator goes): that is the error.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    while (std::chrono::steady_clock::now() < deadline) {
      checkNetwork();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  const std::vector<int> &ranksHere = layout_.ranksOf[size_t(layout_.nodeOf[size_t(rank())])];
  bool sameNumbers = true;
  for (size_t i = 0; i < ranksHere.size(); ++i) sameNumbers = sameNumbers && ranksHere[i] == int(i);
  std::string message = e.what();
  if (!sameNumbers) {
    std::string numbers;
    for (size_t i = 0; i < ranksHere.size(); ++i)
      numbers += (i ? ", " : "") + std::to_string(ranksHere[i]);
    message = "on node " + std::to_string(layout_.nodeOf[size_t(rank())]) + " (whose ranks 0.." +
              std::to_string(ranksHere.size() - 1) + " are ranks " + numbers + " of the job): " +
              message;
  }
  network_->announceFailure(e.code(), message);
  throw RuntimeError(e.code(), message);
}

size_t HybridTransport::inPlaceMinBytes(const void *base, size_t bytes) const {
  return node_ ? node_->inPlaceMinBytes(base, bytes) : 0;
}

void *HybridTransport::allocateShared(size_t bytes) {
  return node_ ? onNode([&] { return node_->allocateShared(bytes); }) : nullptr;
}

bool HybridTransport::freeShared(void *p) { return node_ && node_->freeShared(p); }

Connection HybridTransport::connect(int peer, uint32_t channel, bool sending) {
  Route route;
  route.peer = peer;
  route.channel = channel;
  const int nodeRank = peer >= 0 && peer < ranks() ? nodeRankOf_[size_t(peer)] : -1;
  route.onNode = node_ && nodeRank >= 0;
  route.inner = route.onNode ? onNode([&] { return node_->connect(nodeRank, channel, sending); })
                             : network_->connect(peer, channel, sending);
  const auto [it, fresh] =
      byInner_.try_emplace({route.onNode, route.inner}, Connection(routes_.size()));
  if (fresh) routes_.push_back(route);
  return it->second;
}

void HybridTransport::beginCall(const CallSignature &signature) {
  network_->beginCall(signature);
  if (node_) onNode([&] { node_->beginCall(signature); });
}

std::byte *HybridTransport::staging(size_t bytes) {
  return node_ ? onNode([&] { return node_->staging(bytes); }) : network_->staging(bytes);
}

bool HybridTransport::canPost(Connection c) {
  const Route &r = routes_[c];
  if (!r.onNode) return network_->canPost(r.inner);
  network_->progressSends();
  return onNode([&] { return node_->canPost(r.inner); });
}

void HybridTransport::post(Connection c, const std::byte *data, size_t bytes) {
  const Route &r = routes_[c];
  if (r.onNode)
    onNode([&] { node_->post(r.inner, data, bytes); });
  else
    network_->post(r.inner, data, bytes);
}

bool HybridTransport::arrived(Connection c) {
  const Route &r = routes_[c];
  if (!r.onNode) return network_->arrived(r.inner);
  // MPI moves this rank's large sends to other nodes only while it calls MPI: waiting on its
  // node alone would hold them (a ring's step then took 100 ms over TCP, not 0.2 ms).
  network_->progressSends();
  return onNode([&] { return node_->arrived(r.inner); });
}

const std::byte *HybridTransport::acquire(Connection c, size_t bytes) {
  const Route &r = routes_[c];
  return r.onNode ? onNode([&] { return node_->acquire(r.inner, bytes); })
                  : network_->acquire(r.inner, bytes);
}

void HybridTransport::fetch(Connection c, size_t offset, size_t bytes, std::byte *dst) {
  const Route &r = routes_[c];
  if (r.onNode)
    onNode([&] { node_->fetch(r.inner, offset, bytes, dst); });
  else
    network_->fetch(r.inner, offset, bytes, dst);
}

void HybridTransport::release(Connection c) {
  const Route &r = routes_[c];
  if (r.onNode)
    onNode([&] { node_->release(r.inner); });
  else
    network_->release(r.inner);
}

void HybridTransport::endCall() {
  network_->endCall();
  if (node_) onNode([&] { node_->endCall(); });
}

std::string HybridTransport::describe(Connection c) const {
  const Route &r = routes_[c];
  return "rank " + std::to_string(r.peer) + " (channel " + std::to_string(r.channel) +
         (r.onNode ? ", shared memory)" : ", MPI)");
}

}  // namespace collplan::mpi
