// WorldImpl set-up (backend, topology, bundle) and Communicator::run (validation, plan, execution).
#include "runtime/api/Communicator.h"

#include "runtime/exec/EnvSettings.h"
#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/DefaultRules.h"
#include "runtime/plan/PlanVerify.h"
#include "runtime/topology/Topology.h"

#include <cstdint>
#include <cstdlib>
#include <limits>

namespace collplan {
namespace {

[[noreturn]] void fail(ErrorCode code, const std::string &message) {
  throw RuntimeError(code, message);
}

}  // namespace

namespace {

/// The registry entry named `name`, as the C API reports an unknown one.
const Backend &backendNamed(const std::string &name) {
  try {
    return requireBackend(name);
  } catch (const std::invalid_argument &e) {
    fail(ErrorCode::InvalidArgument, e.what());
  }
}

}  // namespace

WorldImpl::WorldImpl(const WorldConfig &config)
    : config_(config), backend_(backendNamed(config.backend)),
      policy_(backend_.waitPolicyFor(config.ranks)),
      streamingCopyMinBytes_(streamingCopyMinBytesFromEnv()) {
  if (unsignedFromEnv("COLLPLAN_FIXED_REDUCTION_ORDER", 0, "0 or 1", 1))
    config_.fixedReductionOrder = true;
  const WorldConfig &c = config_;
  if (c.ranks < 1 || c.ranks > 4096)
    fail(ErrorCode::InvalidArgument,
         "ranks must be between 1 and 4096, got " + std::to_string(c.ranks));
  // A simulated job opens first, before anything is loaded: nothing of the world would run.
  // The processes of a job its launcher started (mpi) open it first too, together, so they
  // can all fail when one of them cannot load its files, instead of waiting for it.
  if (backend_.simulated() || backend_.startedByItsLauncher())
    job_ = backend_.openJob(JobOptions{c.ranks, c.rank, c.shmJob, policy_, c.native});
  try {
    loadTopologyAndBundle();
  } catch (const RuntimeError &e) {
    if (!job_) throw;
    job_->agreeOnSetUp(e.what(), e.code());  // throws on every process
  }
  if (job_) job_->agreeOnSetUp({}, ErrorCode::File);

  taken_.reset(new std::atomic<bool>[size_t(c.ranks)]);
  for (int r = 0; r < c.ranks; ++r) taken_[size_t(r)] = false;
  calls_.reset(new uint64_t[size_t(c.ranks)]());
  if (backend_.runsOnDevices()) {
    deviceJob_ = c.rank == -1 ? backend_.openDeviceJob(c.ranks)
                              : backend_.openDeviceRank(JobOptions{c.ranks, c.rank, c.shmJob, policy_});
    deviceCalls_ = std::make_unique<DeviceCalls>(*deviceJob_);
  } else if (!job_) {
    job_ = backend_.openJob(JobOptions{c.ranks, c.rank, c.shmJob, policy_, c.native});
  }
}

WorldImpl::~WorldImpl() = default;

void WorldImpl::loadTopologyAndBundle() {
  const WorldConfig &c = config_;
  std::optional<Topology> topology;
  if (!c.topologyFile.empty()) {
    try {
      topology = loadTopologyFile(c.topologyFile);
    } catch (const std::exception &e) {
      fail(ErrorCode::File, e.what());
    }
    if (topology->numRanks() != c.ranks)
      fail(ErrorCode::InvalidArgument, c.topologyFile + ": the topology has " +
                                           std::to_string(topology->numRanks()) +
                                           " ranks but the world has " + std::to_string(c.ranks));
  }
  if (!topology && job_) topology = job_->topology();
  if (topology) nodes_ = topology->numNodes();
  if (!c.bundleFile.empty()) {
    BundleExpectations expect;
    expect.ranks = c.ranks;
    expect.backend = std::string(backend_.name());
    if (topology) expect.fingerprint = topology->fingerprint();
    try {
      // A process that holds one rank builds only that rank's programs, once the whole file
      // is proven (by this process or, as its proof record says, by another).
      if (backend_.oneRankPerProcess())
        bundle_ = loadBundleFileForRank(c.bundleFile, expect, c.rank,
                                        ProofRecords::fromEnvironment(), policy_.timeout);
      else
        bundle_ = loadBundleFile(c.bundleFile, expect);
    } catch (const std::exception &e) {
      fail(ErrorCode::File, e.what());
    }
    if (c.fixedReductionOrder)
      if (std::optional<std::string> where = firstPlanOutOfRankOrder(*bundle_))
        fail(ErrorCode::InvalidArgument,
             c.bundleFile + ": " + *where +
                 " does not fix the reduction order, which this world requires "
                 "(fixed_reduction_order, COLLPLAN_FIXED_REDUCTION_ORDER): tune the bundle with "
                 "plan-tune --fixed-reduction-order");
    for (const BucketTable &t : bundle_->tables) {
      for (int op = 0; op < 4; ++op) {
        if (t.op && int(*t.op) != op) continue;
        tables_[int(t.collective)][int(t.dtype)][op] = &t;
      }
    }
  }
}

std::unique_ptr<Transport> WorldImpl::takeTransport(int rank) {
  if (rank < 0 || rank >= config_.ranks)
    fail(ErrorCode::InvalidArgument, "rank " + std::to_string(rank) + " is out of range for " +
                                         std::to_string(config_.ranks) + " ranks");
  if (deviceJob_ && config_.rank >= 0 && rank != config_.rank)
    fail(ErrorCode::InvalidArgument, "this process holds rank " + std::to_string(config_.rank) +
                                         " of the world, not rank " + std::to_string(rank));
  if (taken_[size_t(rank)].exchange(true))
    fail(ErrorCode::InvalidArgument,
         "rank " + std::to_string(rank) + " already has a communicator in this world");
  try {
    std::unique_ptr<Transport> transport = job_ ? job_->transport(rank, policy_) : nullptr;
    ++live_;
    return transport;
  } catch (...) {
    taken_[size_t(rank)] = false;
    throw;
  }
}

const BucketTable &WorldImpl::sharedDefaultTable(CollectiveKind kind, DType dtype,
                                                 std::optional<ReduceOp> op, int root) {
  std::lock_guard lock(sharedTablesMutex_);
  const auto key = std::make_tuple(int(kind), int(dtype), op ? int(*op) : -1, root);
  auto it = sharedTables_.find(key);
  if (it == sharedTables_.end())
    it = sharedTables_
             .emplace(key, defaultRules().table(kind, dtype, op, ranks(), root, -1, nodes_))
             .first;
  return it->second;
}

void WorldImpl::returnRank(int rank) {
  taken_[size_t(rank)] = false;
  --live_;
}

Communicator::Communicator(WorldImpl &world, int rank) : world_(world), rank_(rank) {
  if (std::unique_ptr<Transport> transport = world.takeTransport(rank))
    session_ = std::make_unique<RankSession>(std::move(transport), world.streamingCopyMinBytes());
}

Communicator::~Communicator() {
  for (void *p : heapAllocations_) std::free(p);
  for (void *p : deviceAllocations_) world_.deviceJob()->release(rank_, p);
  world_.returnRank(rank_);
}

void *Communicator::allocate(size_t bytes) {
  if (bytes == 0) fail(ErrorCode::InvalidArgument, "cannot allocate 0 bytes");
  if (bytes > size_t(PTRDIFF_MAX))  // no address space holds it, and page rounding would wrap
    fail(ErrorCode::InvalidArgument, "cannot allocate " + std::to_string(bytes) +
                                         " bytes: more than PTRDIFF_MAX");
  if (DeviceJob *devices = world_.deviceJob()) {
    void *p = devices->allocate(rank_, bytes);
    deviceAllocations_.insert(p);
    return p;
  }
  if (void *shared = session_->transport().allocateShared(bytes)) return shared;
  void *p = std::aligned_alloc(4096, (bytes + 4095) & ~size_t(4095));
  if (!p) fail(ErrorCode::System, "out of memory allocating " + std::to_string(bytes) + " bytes");
  heapAllocations_.insert(p);
  return p;
}

void Communicator::release(void *p) {
  if (!p) return;
  if (heapAllocations_.erase(p)) {
    std::free(p);
    return;
  }
  if (deviceAllocations_.erase(p)) {
    world_.deviceJob()->release(rank_, p);
    return;
  }
  if (!session_ || !session_->transport().freeShared(p))
    fail(ErrorCode::InvalidArgument,
         "pointer was not returned by collplan_mem_alloc on this communicator (or was freed)");
}

const Plan &Communicator::planFor(CollectiveKind kind, DType dtype, ReduceOp op, int root,
                                  uint64_t messageBytes) {
  const uint64_t shape = uint64_t(int(kind)) << 48 | uint64_t(int(dtype)) << 40 |
                         uint64_t(int(op)) << 32 | uint32_t(root);
  if (shape == lastTable_.shape) return lastTable_.table->lookup(messageBytes).plan;
  const BucketTable *bundleTable = world_.table(kind, dtype, op);
  if (bundleTable) {
    if (!needsRoot(kind)) lastTable_ = {shape, bundleTable};  // its every bucket serves the call
    const Plan &plan = bundleTable->lookup(messageBytes).plan;
    if (!needsRoot(kind) || plan.root == root) return plan;
    // The bundle was tuned with another root: the default rules serve this one.
  }
  if (needsReduceOp(kind) && world_.fixedReductionOrder())
    fail(ErrorCode::InvalidArgument,
         std::string(toString(kind)) + " " + std::string(toString(dtype)) + " " +
             std::string(toString(op)) + (needsRoot(kind) ? " root " + std::to_string(root) : "") +
             ": the world requires a fixed reduction order, and no plan of the bundle serves this "
             "call (the built-in plans fix no order): tune one with plan-tune "
             "--fixed-reduction-order");
  const int opIndex = needsReduceOp(kind) ? int(op) : 0;
  const int rootIndex = needsRoot(kind) ? root : 0;
  std::optional<ReduceOp> planOp;
  if (needsReduceOp(kind)) planOp = op;
  if (!session_) return world_.sharedDefaultTable(kind, dtype, planOp, rootIndex).lookup(messageBytes).plan;
  const uint64_t key = uint64_t(int(kind) * 4 + opIndex) << 32 | uint32_t(rootIndex);
  auto it = defaultTables_.find(key);
  if (it == defaultTables_.end())
    it = defaultTables_
             .emplace(key, defaultRules().table(kind, dtype, planOp, world_.ranks(), rootIndex,
                                                rank_, world_.nodes()))
             .first;
  if (!bundleTable) lastTable_ = {shape, &it->second};
  return it->second.lookup(messageBytes).plan;
}

Communicator::CheckedCall Communicator::check(const CallRequest &req) {
  if (req.collective < 0 || req.collective >= kNumCollectiveKinds)
    fail(ErrorCode::InvalidArgument,
         "unknown collective " + std::to_string(req.collective) + " (expected 0 to 8)");
  const CollectiveKind kind = CollectiveKind(req.collective);
  if (!brokenBy_.empty())
    fail(ErrorCode::InvalidArgument,
         where(kind) + "the communicator is unusable after an earlier failure: " + brokenBy_);
  if (req.dtype < 0 || req.dtype >= kNumDTypes)
    fail(ErrorCode::InvalidArgument, where(kind) + "unknown dtype " + std::to_string(req.dtype) +
                                         " (expected 0 to 6: " + dtypeNames() + ")");
  const DType dtype = DType(req.dtype);
  ReduceOp op = ReduceOp::Sum;
  if (needsReduceOp(kind)) {
    if (req.op < 0 || req.op >= 4)
      fail(ErrorCode::InvalidArgument, where(kind) + "unknown reduction op " + std::to_string(req.op) +
                                           " (expected 0 to 3: " + reduceOpNames() + ")");
    op = ReduceOp(req.op);
  }
  const int root = needsRoot(kind) ? req.root : 0;
  if (needsRoot(kind) && (root < 0 || root >= ranks()))
    fail(ErrorCode::InvalidArgument, where(kind) + "root " + std::to_string(root) +
                                         " is out of range for " + std::to_string(ranks()) +
                                         " ranks");

  const size_t elementSize = dtypeSize(dtype);
  const int blocks = messageBlocks(kind, ranks());
  if (blocks > 0 && req.count > std::numeric_limits<size_t>::max() / 2 / elementSize / size_t(blocks))
    fail(ErrorCode::InvalidArgument, where(kind) + "count " + std::to_string(req.count) +
                                         " is too large: the message size overflows");
  const size_t blockBytes = req.count * elementSize;
  const size_t inBytes = size_t(inputBlocks(kind, ranks(), rank_, root)) * blockBytes;
  const size_t outBytes = size_t(outputBlocks(kind, ranks(), rank_, root)) * blockBytes;
  auto checkBuffer = [&](const void *p, size_t need, size_t have, const char *name) {
    if (need == 0) return;
    auto shape = [&] {
      return std::to_string(need) + " bytes (" + std::to_string(need / elementSize) + " x " +
             std::string(toString(dtype)) + ")";
    };
    if (!p)
      fail(ErrorCode::NullPointer,
           where(kind) + name + " buffer is NULL but the call uses " + shape());
    if ((reinterpret_cast<uintptr_t>(p) & (elementSize - 1)) != 0)  // sizes are powers of two
      fail(ErrorCode::MisalignedBuffer,
           where(kind) + name + " buffer " + std::to_string(uintptr_t(p)) +
               " is not aligned to the " + std::to_string(elementSize) + "-byte size of " +
               std::string(toString(dtype)));
    if (have != SIZE_MAX && have < need)
      fail(ErrorCode::BufferTooSmall, where(kind) + name + " buffer holds " +
                                          std::to_string(have) + " bytes but the call uses " +
                                          shape());
  };
  checkBuffer(req.send, inBytes, req.sendBytes, "send");
  checkBuffer(req.recv, outBytes, req.recvBytes, "recv");
  CheckedCall out;
  out.kind = kind;
  CallBuffers &call = out.call;
  call.in = req.send;
  call.out = req.recv;
  call.inBytes = inBytes;
  call.outBytes = outBytes;
  call.count = req.count;
  call.dtype = dtype;
  call.op = op;
  // Numbered even when nothing moves, so a peer that moves data in this call is caught.
  call.signature = CallSignature{kind, dtype, op, root, world_.nextCall(rank_)};
  if (kind != CollectiveKind::Barrier && req.count == 0) return out;  // nothing moves on any rank

  try {
    out.plan = &planFor(kind, dtype, op, root, uint64_t(blocks) * blockBytes);
  } catch (const RuntimeError &) {
    throw;
  } catch (const std::exception &e) {
    fail(ErrorCode::Plan, where(kind) + e.what());
  }
  lastAlgorithm_ = &out.plan->algorithm;
  return out;
}

std::string Communicator::where(CollectiveKind kind) const {
  return std::string(toString(kind)) + " on rank " + std::to_string(rank_) + " of " +
         std::to_string(ranks()) + ": ";
}

const std::string &Communicator::lastAlgorithm() const {
  static const std::string none;
  return lastAlgorithm_ ? *lastAlgorithm_ : none;
}

template <typename Body>
void Communicator::guardExecution(CollectiveKind kind, Body &&body) {
  try {
    body();
  } catch (const RuntimeError &e) {
    brokenBy_ = e.what();
    throw RuntimeError(e.code(), where(kind) + e.what());
  } catch (const std::exception &e) {
    brokenBy_ = e.what();
    fail(ErrorCode::Internal, where(kind) + e.what());
  }
}

void Communicator::run(const CallRequest &req) {
  if (!session_)
    fail(ErrorCode::Unsupported,
         "backend " + std::string(world_.backend().name()) +
             " enqueues calls on device streams: use collplan_cuda_call (collplan_cuda.h)");
  const CheckedCall checked = check(req);
  if (!checked.plan) return;
  const PreparedProgram *program = nullptr;
  try {
    program = &session_->prepare(*checked.plan);
  } catch (const RuntimeError &) {
    throw;
  } catch (const std::exception &e) {
    fail(ErrorCode::Plan, where(checked.kind) + e.what());
  }
  guardExecution(checked.kind, [&] { session_->run(*program, checked.call); });
}

void Communicator::enqueue(const CallRequest &req, DeviceStream stream) {
  if (!world_.deviceCalls())
    fail(ErrorCode::Unsupported,
         "backend " + std::string(world_.backend().name()) +
             " runs calls on the host: use collplan_call (collplan.h)");
  const CheckedCall checked = check(req);
  if (!checked.plan) return;
  guardExecution(checked.kind,
                 [&] { world_.deviceCalls()->submit(rank_, *checked.plan, checked.call, stream); });
}

}  // namespace collplan
