// WorldImpl and Communicator: the C++ core behind collplan.h (validation, plan choice, execution).
#pragma once

#include "runtime/backends/Backend.h"
#include "runtime/exec/RankSession.h"
#include "runtime/plan/Plan.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace collplan {

/// What collplan_world_create was asked for (strings copied).
struct WorldConfig {
  std::string backend;
  int ranks = 0;
  int rank = -1;
  std::string shmJob;
  std::string topologyFile;  ///< empty: none
  std::string bundleFile;    ///< empty: none
  /// The backend's handle of the job's processes (JobOptions::native), read only while the
  /// world is created; nullptr for the backend's default.
  const void *native = nullptr;
};

/// The ranks of one job as seen by this process, and what they share: backend state and the
/// loaded bundle (read-only after creation).
class WorldImpl {
public:
  /// Validates `config`, loads the topology and bundle, sets up the backend. Throws RuntimeError.
  explicit WorldImpl(const WorldConfig &config);
  ~WorldImpl();

  const Backend &backend() const { return backend_; }
  int ranks() const { return config_.ranks; }
  /// This process's rank (one rank per process) or -1 (the world holds every rank).
  int localRank() const { return config_.rank; }
  /// The bundle table for a call, or nullptr (then the built-in plans serve it).
  const BucketTable *table(CollectiveKind kind, DType dtype, ReduceOp op) const {
    return tables_[int(kind)][int(dtype)][int(op)];
  }
  /// Hands out rank `rank`'s transport (once per rank at a time). Throws RuntimeError.
  std::unique_ptr<Transport> takeTransport(int rank);
  void returnRank(int rank);
  int liveCommunicators() const { return live_.load(); }
  /// The number of rank `rank`'s next call, counted over every communicator the rank has had
  /// in this world (one at a time), so peers can tell a skipped call (CallSignature::call).
  uint64_t nextCall(int rank) { return calls_[size_t(rank)]++; }
  /// COLLPLAN_STREAMING_COPY_MIN as read when the world was created.
  size_t streamingCopyMinBytes() const { return streamingCopyMinBytes_; }

private:
  /// The topology file, or the job's own topology (mpi), and the bundle, checked against them.
  void loadTopologyAndBundle();

  WorldConfig config_;
  const Backend &backend_;
  std::optional<Bundle> bundle_;
  const BucketTable *tables_[kNumCollectiveKinds][kNumDTypes][4] = {};
  std::unique_ptr<Job> job_;
  std::unique_ptr<std::atomic<bool>[]> taken_;
  std::unique_ptr<uint64_t[]> calls_;  ///< per rank: calls made (nextCall)
  std::atomic<int> live_{0};
  WaitPolicy policy_;
  size_t streamingCopyMinBytes_;
};

/// One collective call as the C API received it (enums not yet validated).
struct CallRequest {
  int collective = 0;
  const void *send = nullptr;
  size_t sendBytes = SIZE_MAX;  ///< SIZE_MAX: unknown
  void *recv = nullptr;
  size_t recvBytes = SIZE_MAX;
  size_t count = 0;
  int dtype = 0;
  int op = 0;
  int root = 0;
};

/// One rank's communicator: validates calls, picks the plan (the bundle's bucket, else the
/// default rules' bucket), runs it on its session. Prepared programs are cached per plan, so a
/// repeated call costs a table lookup, a binary search over buckets and the op loop.
class Communicator {
public:
  Communicator(WorldImpl &world, int rank);
  ~Communicator();

  int rank() const { return rank_; }
  int ranks() const { return world_.ranks(); }
  WorldImpl &world() { return world_; }
  const std::string &lastAlgorithm() const { return lastAlgorithm_; }

  /// Throws RuntimeError with the code and message the C API reports.
  void run(const CallRequest &request);

  /// Memory for call buffers (collplan_mem_alloc): shared with the job's other processes on
  /// cpu-shm, so peers read it in place; page-aligned heap memory elsewhere. Throws RuntimeError.
  void *allocate(size_t bytes);
  /// Frees what allocate returned. Throws RuntimeError(InvalidArgument) for any other pointer.
  void release(void *p);

private:
  const PreparedProgram &programFor(CollectiveKind kind, DType dtype, ReduceOp op, int root,
                                    uint64_t messageBytes);

  WorldImpl &world_;
  int rank_;
  RankSession session_;
  /// For calls no bundle covers, by (kind, op, root): the default rules' table (built-in plans
  /// by size, DefaultRules.h), built on first use; the session prepares each plan once.
  std::unordered_map<uint64_t, BucketTable> defaultTables_;
  std::string lastAlgorithm_;
  std::string brokenBy_;  ///< set when a failure mid-call left the ranks out of step
  std::unordered_set<void *> heapAllocations_;  ///< allocate()'s memory outside the transport
};

}  // namespace collplan
