// WorldImpl and Communicator: the C++ core behind collplan.h (validation, plan choice, execution).
#pragma once

#include "runtime/api/DeviceCalls.h"
#include "runtime/backends/Backend.h"
#include "runtime/exec/RankSession.h"
#include "runtime/plan/Plan.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
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
  /// Every reduction must fold in rank order (collplan_config_t::fixed_reduction_order; also
  /// set by COLLPLAN_FIXED_REDUCTION_ORDER=1 whatever the caller passed).
  bool fixedReductionOrder = false;
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
  /// The machines the ranks span (the topology's nodes: the mpi job's own, or the file's; 1
  /// without a topology), which the default rules choose by.
  int nodes() const { return nodes_; }
  /// This process's rank (one rank per process) or -1 (the world holds every rank).
  int localRank() const { return config_.rank; }
  /// The bundle table for a call, or nullptr (then the built-in plans serve it).
  const BucketTable *table(CollectiveKind kind, DType dtype, ReduceOp op) const {
    return tables_[int(kind)][int(dtype)][int(op)];
  }
  /// Hands out rank `rank`'s transport (once per rank at a time); nullptr in a device world,
  /// whose ranks have none. Throws RuntimeError.
  std::unique_ptr<Transport> takeTransport(int rank);
  /// The devices of a world whose backend runs on them (cuda), else nullptr.
  DeviceJob *deviceJob() const { return deviceJob_.get(); }
  DeviceCalls *deviceCalls() const { return deviceCalls_.get(); }
  /// The default rules' whole-world table for calls no bundle covers, shared by the ranks of a
  /// device world (a device launches its ranks' calls of one plan object together).
  const BucketTable &sharedDefaultTable(CollectiveKind kind, DType dtype,
                                        std::optional<ReduceOp> op, int root);
  void returnRank(int rank);
  int liveCommunicators() const { return live_.load(); }
  /// The number of rank `rank`'s next call, counted over every communicator the rank has had
  /// in this world (one at a time), so peers can tell a skipped call (CallSignature::call).
  uint64_t nextCall(int rank) { return calls_[size_t(rank)]++; }
  /// Whether every reduction must fold in rank order: the bundle's plans all do (checked when
  /// the world was created), and reducing calls it does not cover are refused.
  bool fixedReductionOrder() const { return config_.fixedReductionOrder; }
  /// COLLPLAN_STREAMING_COPY_MIN as read when the world was created.
  size_t streamingCopyMinBytes() const { return streamingCopyMinBytes_; }

private:
  /// The topology file, or the job's own topology (mpi), and the bundle, checked against them.
  void loadTopologyAndBundle();

  WorldConfig config_;
  const Backend &backend_;
  int nodes_ = 1;
  std::optional<Bundle> bundle_;
  const BucketTable *tables_[kNumCollectiveKinds][kNumDTypes][4] = {};
  std::unique_ptr<Job> job_;
  std::unique_ptr<DeviceJob> deviceJob_;
  std::unique_ptr<DeviceCalls> deviceCalls_;
  std::mutex sharedTablesMutex_;
  std::map<std::tuple<int, int, int, int>, BucketTable> sharedTables_;
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
  /// The algorithm of the plan the last call ran ("" before any).
  const std::string &lastAlgorithm() const;

  /// Throws RuntimeError with the code and message the C API reports.
  void run(const CallRequest &request);
  /// Enqueues the call on `stream` (a device world's calls, collplan_cuda_call): launched
  /// once every rank of this rank's device has made its call. Never waits for the device.
  void enqueue(const CallRequest &request, DeviceStream stream);

  /// Memory for call buffers (collplan_mem_alloc): shared with the job's other processes on
  /// cpu-shm, so peers read it in place; device memory of the rank's device in a device world;
  /// page-aligned heap memory elsewhere. Throws RuntimeError.
  void *allocate(size_t bytes);
  /// Frees what allocate returned. Throws RuntimeError(InvalidArgument) for any other pointer.
  void release(void *p);

private:
  /// A validated call: its buffers and the plan that serves it (nullptr: nothing moves).
  struct CheckedCall {
    CallBuffers call;
    const Plan *plan = nullptr;
    CollectiveKind kind = CollectiveKind::AllReduce;
  };
  CheckedCall check(const CallRequest &request);
  /// "allreduce on rank 2 of 8: ", the prefix of a call's errors; built only when one is thrown,
  /// since a call that succeeds must not pay for formatting.
  std::string where(CollectiveKind kind) const;
  const Plan &planFor(CollectiveKind kind, DType dtype, ReduceOp op, int root,
                      uint64_t messageBytes);
  /// Runs `body`; a failure there leaves the ranks out of step, so it breaks the communicator.
  template <typename Body> void guardExecution(CollectiveKind kind, Body &&body);

  WorldImpl &world_;
  int rank_;
  std::unique_ptr<RankSession> session_;  ///< nullptr in a device world
  /// For calls no bundle covers, by (kind, op, root): the default rules' table (built-in plans
  /// by size, DefaultRules.h), built on first use; the session prepares each plan once.
  std::unordered_map<uint64_t, BucketTable> defaultTables_;
  /// The table that served the last call shape (kind, dtype, op, root) whose every bucket serves
  /// it: a job makes the same call over and over, and this skips the bundle's table search and
  /// the hash lookup. Tables live as long as the communicator (unordered_map nodes are stable).
  struct TableMemo {
    uint64_t shape = ~uint64_t(0);
    const BucketTable *table = nullptr;
  } lastTable_;
  const std::string *lastAlgorithm_ = nullptr;  ///< of a plan the communicator holds
  std::string brokenBy_;  ///< set when a failure mid-call left the ranks out of step
  std::unordered_set<void *> heapAllocations_;  ///< allocate()'s memory outside the transport
  std::unordered_set<void *> deviceAllocations_;  ///< allocate()'s memory in a device world
};

}  // namespace collplan
