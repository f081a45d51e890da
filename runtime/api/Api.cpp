// The C API (collplan.h): handles, error reporting and argument plumbing over Communicator.
#include "collplan.h"

#include "runtime/api/ApiHandles.h"
#include "runtime/api/Communicator.h"
#include "runtime/exec/EnvSettings.h"
#include "runtime/exec/RuntimeError.h"

#include <atomic>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

struct collplan_world {
  std::unique_ptr<collplan::WorldImpl> impl;
  std::atomic<int> users{0};  ///< calls of the API running on it now (LiveHandles::Use)
};
struct collplan_comm {
  /// The world of a communicator made with its own (collplan_comm_create_mpi); declared
  /// first, so it outlives the communicator.
  std::unique_ptr<collplan::WorldImpl> ownWorld;
  std::unique_ptr<collplan::Communicator> impl;
  std::atomic<int> users{0};
};

namespace {

using collplan::ErrorCode;
using collplan::RuntimeError;

thread_local std::string lastError;

collplan_status_t setError(collplan_status_t status, std::string message) {
  lastError = std::move(message);
  return status;
}

/// Runs `body`, turning every exception into a status and this thread's last-error message.
template <typename Body>
collplan_status_t guarded(const char *function, Body &&body) {
  try {
    body();
    return COLLPLAN_SUCCESS;  // the last failure's message stays readable
  } catch (const RuntimeError &e) {
    return setError(collplan_status_t(int(e.code())), std::string(function) + ": " + e.what());
  } catch (const std::bad_alloc &) {
    return setError(COLLPLAN_ERROR_SYSTEM, std::string(function) + ": out of memory");
  } catch (const std::exception &e) {
    return setError(COLLPLAN_ERROR_INTERNAL, std::string(function) + ": " + e.what());
  } catch (...) {
    return setError(COLLPLAN_ERROR_INTERNAL, std::string(function) + ": unknown exception");
  }
}

[[noreturn]] void nullArgument(const char *name) {
  throw RuntimeError(ErrorCode::NullPointer, std::string(name) + " is NULL");
}

/// The handles of one type this process created and has not destroyed. A destroyed handle's
/// wrapper (one pointer) is never freed, so its address is never handed out again: a stale or
/// made-up handle is always refused, never dereferenced. Every API call that works on a handle
/// holds a Use of it, so destroying a handle another thread is using is refused, not a
/// use-after-free.
template <typename Handle>
class LiveHandles {
public:
  LiveHandles(const char *argument, const char *what) : argument_(argument), what_(what) {}

  /// A live handle, counted as in use until the Use ends.
  class Use {
  public:
    explicit Use(Handle &h) : handle_(h) {}
    Use(const Use &) = delete;
    Use &operator=(const Use &) = delete;
    ~Use() { handle_.users.fetch_sub(1, std::memory_order_release); }
    Handle &operator*() const { return handle_; }
    Handle *operator->() const { return &handle_; }

  private:
    Handle &handle_;
  };

  Handle *add(std::unique_ptr<Handle> handle) {
    std::unique_lock lock(mutex_);
    live_.insert(handle.get());
    return handle.release();
  }
  /// Throws NullPointer for NULL, InvalidArgument for a handle that is not live.
  ///
  /// Fast path, without the lock and the set: the handle this thread proved live last, while no
  /// handle has been retired since (the generation). retire() moves the generation on before it
  /// reads `users`, and a user counts itself in before it reads the generation again (all
  /// sequentially consistent), so either retire sees the user and refuses, or the user sees
  /// the new generation and takes the slow path, which refuses a retired handle.
  Use use(Handle *handle) const {
    if (!handle) nullArgument(argument_);
    const uint64_t generation = generation_.load();
    if (handle == lastProven_ && generation == lastGeneration_) {
      handle->users.fetch_add(1);
      if (generation_.load() == generation) return Use(*handle);
      handle->users.fetch_sub(1);
    }
    std::shared_lock lock(mutex_);
    if (!live_.count(handle)) notLive();
    handle->users.fetch_add(1);
    lastProven_ = handle;
    lastGeneration_ = generation_.load();  // only retire() moves it, under the unique lock
    return Use(*handle);
  }
  /// Takes `handle` off the live list (the caller then frees what it holds). Throws
  /// InvalidArgument when it is not live, or when another thread is using it, and what
  /// `mayRetire` throws (it runs while no call can start on the handle).
  void retire(Handle *handle, const std::function<void(const Handle &)> &mayRetire = {}) {
    std::unique_lock lock(mutex_);
    if (!live_.count(handle)) notLive();
    generation_.fetch_add(1);  // before reading users: see use()
    if (mayRetire) mayRetire(*handle);
    if (const int users = handle->users.load())
      throw RuntimeError(ErrorCode::InvalidArgument,
                         std::string(argument_) + " is in use by " + std::to_string(users) +
                             " call(s) on other threads: destroy a " + what_ +
                             " only once every call on it has returned");
    live_.erase(handle);
  }

private:
  [[noreturn]] void notLive() const {
    throw RuntimeError(ErrorCode::InvalidArgument,
                       std::string(argument_) + " is not a live " + what_ +
                           ": it was destroyed, or not made by this library");
  }

  const char *argument_;
  const char *what_;
  mutable std::shared_mutex mutex_;
  std::unordered_set<const Handle *> live_;
  /// Moves on each time a handle may be retired; use()'s fast path holds while it stands still.
  std::atomic<uint64_t> generation_{0};
  /// The handle this thread proved live last (use()), and the generation it was proven in.
  static inline thread_local const Handle *lastProven_ = nullptr;
  static inline thread_local uint64_t lastGeneration_ = 0;
};

LiveHandles<collplan_world> &worlds() {
  static LiveHandles<collplan_world> live("world", "world");
  return live;
}
LiveHandles<collplan_comm> &comms() {
  static LiveHandles<collplan_comm> live("comm", "communicator");
  return live;
}

collplan_status_t collective(const char *function, collplan_comm_t comm,
                             const collplan::CallRequest &request) {
  return guarded(function, [&] { comms().use(comm)->impl->run(request); });
}

collplan::CallRequest request(collplan_collective_t kind, const void *send, void *recv,
                              size_t count, int dtype, int op, int root) {
  collplan::CallRequest r;
  r.collective = int(kind);
  r.send = send;
  r.recv = recv;
  r.count = count;
  r.dtype = dtype;
  r.op = op;
  r.root = root;
  return r;
}

/// Parses an integer environment variable; throws naming it when missing or malformed.
int envInt(const char *name) {
  const char *text = std::getenv(name);
  if (!text) throw RuntimeError(ErrorCode::InvalidArgument, std::string(name) + " is not set");
  char *end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < -1 || value > 1 << 20)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       std::string(name) + " must be an integer, got \"" + text + "\"");
  return int(value);
}

}  // namespace

namespace collplan::api {

collplan_status_t guardedCall(const char *function, const std::function<void()> &body) {
  return guarded(function, body);
}

void withCommunicator(collplan_comm_t comm, const std::function<void(Communicator &)> &body) {
  auto c = comms().use(comm);
  body(*c->impl);
}

bool isLive(collplan_comm_t comm) {
  try {
    comms().use(comm);
    return true;
  } catch (const RuntimeError &) {
    return false;
  }
}

CallRequest callRequest(const collplan_call_t &call) {
  CallRequest r = request(call.collective, call.send, call.recv, call.count, call.dtype, call.op,
                          call.root);
  r.sendBytes = call.send_bytes;
  r.recvBytes = call.recv_bytes;
  return r;
}

collplan_comm_t adoptWorld(std::unique_ptr<WorldImpl> world, int rank) {
  auto handle = std::make_unique<collplan_comm>();
  handle->impl = std::make_unique<Communicator>(*world, rank);
  handle->ownWorld = std::move(world);
  return comms().add(std::move(handle));
}

}  // namespace collplan::api

extern "C" {

const char *collplan_error_string(collplan_status_t status) {
  switch (status) {
  case COLLPLAN_SUCCESS: return "COLLPLAN_SUCCESS: no error";
  case COLLPLAN_ERROR_INVALID_ARGUMENT: return "COLLPLAN_ERROR_INVALID_ARGUMENT: invalid argument";
  case COLLPLAN_ERROR_NULL_POINTER: return "COLLPLAN_ERROR_NULL_POINTER: a required pointer is NULL";
  case COLLPLAN_ERROR_BUFFER_TOO_SMALL: return "COLLPLAN_ERROR_BUFFER_TOO_SMALL: buffer too small";
  case COLLPLAN_ERROR_MISALIGNED_BUFFER:
    return "COLLPLAN_ERROR_MISALIGNED_BUFFER: buffer not aligned to its dtype";
  case COLLPLAN_ERROR_UNSUPPORTED: return "COLLPLAN_ERROR_UNSUPPORTED: not supported";
  case COLLPLAN_ERROR_FILE: return "COLLPLAN_ERROR_FILE: a topology or bundle file is invalid";
  case COLLPLAN_ERROR_PLAN: return "COLLPLAN_ERROR_PLAN: the plan cannot run here";
  case COLLPLAN_ERROR_SYSTEM: return "COLLPLAN_ERROR_SYSTEM: an operating-system call failed";
  case COLLPLAN_ERROR_TIMEOUT: return "COLLPLAN_ERROR_TIMEOUT: a peer did not answer in time";
  case COLLPLAN_ERROR_INTERNAL: return "COLLPLAN_ERROR_INTERNAL: internal error";
  case COLLPLAN_STATUS_MIN_ENUM: case COLLPLAN_STATUS_MAX_ENUM: break;
  }
  return "unknown collplan status";
}

const char *collplan_last_error(void) { return lastError.c_str(); }

size_t collplan_dtype_size(collplan_dtype_t dtype) {
  if (int(dtype) < 0 || int(dtype) >= collplan::kNumDTypes) return 0;
  return collplan::dtypeSize(collplan::DType(dtype));
}

void collplan_config_init(collplan_config_t *config) {
  if (!config) return;
  config->backend = nullptr;
  config->ranks = 0;
  config->rank = -1;
  config->shm_job = nullptr;
  config->topology_file = nullptr;
  config->bundle_file = nullptr;
  config->fixed_reduction_order = 0;
}

collplan_status_t collplan_config_from_env(collplan_config_t *config) {
  return guarded("collplan_config_from_env", [&] {
    if (!config) nullArgument("config");
    // Each variable that is set overrides the caller's value; the others keep it.
    if (const char *backend = std::getenv("COLLPLAN_BACKEND")) config->backend = backend;
    if (!config->backend)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "COLLPLAN_BACKEND is not set and config->backend is NULL: set one");
    if (std::getenv("COLLPLAN_RANKS")) config->ranks = envInt("COLLPLAN_RANKS");
    const collplan::Backend *backend = collplan::findBackend(config->backend);
    if (backend && backend->oneRankPerProcess()) {
      if (std::getenv("COLLPLAN_RANK")) config->rank = envInt("COLLPLAN_RANK");
      if (const char *job = std::getenv("COLLPLAN_SHM_JOB")) config->shm_job = job;
      if (config->rank < 0)
        throw RuntimeError(ErrorCode::InvalidArgument,
                           "COLLPLAN_RANK is not set and config->rank is -1: a " +
                               std::string(config->backend) + " process needs its rank");
      if (!config->shm_job)
        throw RuntimeError(ErrorCode::InvalidArgument,
                           "COLLPLAN_SHM_JOB is not set and config->shm_job is NULL: a " +
                               std::string(config->backend) + " process needs its job's name");
    }
    if (const char *topology = std::getenv("COLLPLAN_TOPOLOGY")) config->topology_file = topology;
    if (const char *bundle = std::getenv("COLLPLAN_BUNDLE")) config->bundle_file = bundle;
    config->fixed_reduction_order = int(collplan::unsignedFromEnv(
        "COLLPLAN_FIXED_REDUCTION_ORDER", uint64_t(config->fixed_reduction_order != 0), "0 or 1", 1));
  });
}

collplan_status_t collplan_world_create(const collplan_config_t *config, collplan_world_t *world) {
  return guarded("collplan_world_create", [&] {
    if (!world) nullArgument("world");
    *world = nullptr;
    if (!config) nullArgument("config");
    if (!config->backend) nullArgument("config->backend");
    collplan::WorldConfig c;
    c.backend = config->backend;
    c.ranks = config->ranks;
    c.rank = config->rank;
    if (config->shm_job) c.shmJob = config->shm_job;
    if (config->topology_file) c.topologyFile = config->topology_file;
    if (config->bundle_file) c.bundleFile = config->bundle_file;
    c.fixedReductionOrder = config->fixed_reduction_order != 0;
    auto handle = std::make_unique<collplan_world>();
    handle->impl = std::make_unique<collplan::WorldImpl>(c);
    *world = worlds().add(std::move(handle));
  });
}

collplan_status_t collplan_world_destroy(collplan_world_t world) {
  return guarded("collplan_world_destroy", [&] {
    if (!world) return;
    worlds().retire(world, [](const collplan_world &w) {
      if (int live = w.impl->liveCommunicators())
        throw RuntimeError(ErrorCode::InvalidArgument,
                           "the world still has " + std::to_string(live) +
                               " communicator(s): destroy them first");
    });
    world->impl.reset();
  });
}

collplan_status_t collplan_world_ranks(collplan_world_t world, int *ranks) {
  return guarded("collplan_world_ranks", [&] {
    auto w = worlds().use(world);
    if (!ranks) nullArgument("ranks");
    *ranks = w->impl->ranks();
  });
}

collplan_status_t collplan_world_local_rank(collplan_world_t world, int *rank) {
  return guarded("collplan_world_local_rank", [&] {
    auto w = worlds().use(world);
    if (!rank) nullArgument("rank");
    *rank = w->impl->localRank();
  });
}

collplan_status_t collplan_comm_create(collplan_world_t world, int rank, collplan_comm_t *comm) {
  return guarded("collplan_comm_create", [&] {
    if (!comm) nullArgument("comm");
    *comm = nullptr;
    auto w = worlds().use(world);
    auto handle = std::make_unique<collplan_comm>();
    handle->impl = std::make_unique<collplan::Communicator>(*w->impl, rank);
    *comm = comms().add(std::move(handle));
  });
}

collplan_status_t collplan_comm_destroy(collplan_comm_t comm) {
  return guarded("collplan_comm_destroy", [&] {
    if (!comm) return;
    comms().retire(comm);
    comm->impl.reset();
    comm->ownWorld.reset();
  });
}

collplan_status_t collplan_comm_rank(collplan_comm_t comm, int *rank) {
  return guarded("collplan_comm_rank", [&] {
    auto c = comms().use(comm);
    if (!rank) nullArgument("rank");
    *rank = c->impl->rank();
  });
}

collplan_status_t collplan_comm_size(collplan_comm_t comm, int *ranks) {
  return guarded("collplan_comm_size", [&] {
    auto c = comms().use(comm);
    if (!ranks) nullArgument("ranks");
    *ranks = c->impl->ranks();
  });
}

collplan_status_t collplan_mem_alloc(collplan_comm_t comm, size_t bytes, void **ptr) {
  return guarded("collplan_mem_alloc", [&] {
    auto c = comms().use(comm);
    if (!ptr) nullArgument("ptr");
    *ptr = nullptr;
    *ptr = c->impl->allocate(bytes);
  });
}

collplan_status_t collplan_mem_free(collplan_comm_t comm, void *ptr) {
  return guarded("collplan_mem_free", [&] {
    comms().use(comm)->impl->release(ptr);
  });
}

const char *collplan_comm_last_algorithm(collplan_comm_t comm) {
  const char *algorithm = "";
  guarded("collplan_comm_last_algorithm",
          [&] { algorithm = comms().use(comm)->impl->lastAlgorithm().c_str(); });
  return algorithm;
}

collplan_status_t collplan_run_threads(collplan_world_t world, collplan_thread_fn fn, void *user) {
  struct Outcome {
    collplan_status_t status = COLLPLAN_SUCCESS;
    std::string message;
  };
  std::vector<Outcome> outcomes;
  collplan_status_t status = guarded("collplan_run_threads", [&] {
    auto w = worlds().use(world);
    if (!fn) nullArgument("fn");
    if (w->impl->backend().oneRankPerProcess())
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "collplan_run_threads needs a world that holds every rank (cpu-threads), "
                         "this one is " + std::string(w->impl->backend().name()) +
                             " with one rank per process");
    const int ranks = w->impl->ranks();
    outcomes.resize(size_t(ranks));
    std::vector<std::thread> threads;
    threads.reserve(size_t(ranks));
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back([&, r] {
        Outcome &o = outcomes[size_t(r)];
        collplan_comm_t comm = nullptr;
        o.status = collplan_comm_create(world, r, &comm);
        if (o.status == COLLPLAN_SUCCESS) {
          o.status = fn(comm, user);
          if (o.status != COLLPLAN_SUCCESS) o.message = collplan_last_error();
          collplan_comm_destroy(comm);
        } else {
          o.message = collplan_last_error();
        }
      });
    for (std::thread &t : threads) t.join();
  });
  if (status != COLLPLAN_SUCCESS) return status;
  for (size_t r = 0; r < outcomes.size(); ++r)
    if (outcomes[r].status != COLLPLAN_SUCCESS)
      return setError(outcomes[r].status, "collplan_run_threads: rank " + std::to_string(r) +
                                              ": " + outcomes[r].message);
  return COLLPLAN_SUCCESS;
}

collplan_status_t collplan_allreduce(collplan_comm_t comm, const void *send, void *recv,
                                     size_t count, collplan_dtype_t dtype, collplan_op_t op) {
  return collective("collplan_allreduce", comm,
                    request(COLLPLAN_ALLREDUCE, send, recv, count, dtype, op, 0));
}
collplan_status_t collplan_allgather(collplan_comm_t comm, const void *send, void *recv,
                                     size_t count, collplan_dtype_t dtype) {
  return collective("collplan_allgather", comm,
                    request(COLLPLAN_ALLGATHER, send, recv, count, dtype, 0, 0));
}
collplan_status_t collplan_reduce_scatter(collplan_comm_t comm, const void *send, void *recv,
                                          size_t count, collplan_dtype_t dtype, collplan_op_t op) {
  return collective("collplan_reduce_scatter", comm,
                    request(COLLPLAN_REDUCE_SCATTER, send, recv, count, dtype, op, 0));
}
collplan_status_t collplan_alltoall(collplan_comm_t comm, const void *send, void *recv,
                                    size_t count, collplan_dtype_t dtype) {
  return collective("collplan_alltoall", comm,
                    request(COLLPLAN_ALLTOALL, send, recv, count, dtype, 0, 0));
}
collplan_status_t collplan_broadcast(collplan_comm_t comm, const void *send, void *recv,
                                     size_t count, collplan_dtype_t dtype, int root) {
  return collective("collplan_broadcast", comm,
                    request(COLLPLAN_BROADCAST, send, recv, count, dtype, 0, root));
}
collplan_status_t collplan_reduce(collplan_comm_t comm, const void *send, void *recv,
                                  size_t count, collplan_dtype_t dtype, collplan_op_t op,
                                  int root) {
  return collective("collplan_reduce", comm,
                    request(COLLPLAN_REDUCE, send, recv, count, dtype, op, root));
}
collplan_status_t collplan_gather(collplan_comm_t comm, const void *send, void *recv,
                                  size_t count, collplan_dtype_t dtype, int root) {
  return collective("collplan_gather", comm,
                    request(COLLPLAN_GATHER, send, recv, count, dtype, 0, root));
}
collplan_status_t collplan_scatter(collplan_comm_t comm, const void *send, void *recv,
                                   size_t count, collplan_dtype_t dtype, int root) {
  return collective("collplan_scatter", comm,
                    request(COLLPLAN_SCATTER, send, recv, count, dtype, 0, root));
}
collplan_status_t collplan_barrier(collplan_comm_t comm) {
  return collective("collplan_barrier", comm,
                    request(COLLPLAN_BARRIER, nullptr, nullptr, 0, COLLPLAN_U8, 0, 0));
}

collplan_status_t collplan_call(collplan_comm_t comm, const collplan_call_t *call) {
  if (!call) return setError(COLLPLAN_ERROR_NULL_POINTER, "collplan_call: call is NULL");
  return collective("collplan_call", comm, collplan::api::callRequest(*call));
}

}  // extern "C"
