// collplan.hpp: the C++ API, RAII handles over collplan.h that throw collplan::Error on failure.
#pragma once

#include "collplan.h"

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace collplan {

/// A failed call: the status code and collplan_last_error()'s message.
class Error : public std::runtime_error {
public:
  Error(collplan_status_t status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  collplan_status_t status() const { return status_; }

private:
  collplan_status_t status_;
};

/// Throws Error when `status` is not COLLPLAN_SUCCESS.
inline void check(collplan_status_t status) {
  if (status != COLLPLAN_SUCCESS) throw Error(status, collplan_last_error());
}

/// The collplan dtype of a C++ element type (float, double, int32_t, int64_t, uint8_t); f16 and
/// bf16 have no standard C++17 type: use the untyped calls with COLLPLAN_F16 / COLLPLAN_BF16.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr collplan_dtype_t value = COLLPLAN_F32; };
template <> struct DTypeOf<double> { static constexpr collplan_dtype_t value = COLLPLAN_F64; };
template <> struct DTypeOf<int32_t> { static constexpr collplan_dtype_t value = COLLPLAN_I32; };
template <> struct DTypeOf<int64_t> { static constexpr collplan_dtype_t value = COLLPLAN_I64; };
template <> struct DTypeOf<uint8_t> { static constexpr collplan_dtype_t value = COLLPLAN_U8; };

/// One rank's communicator (move-only; destroyed with its scope).
class Comm {
public:
  Comm() = default;
  explicit Comm(collplan_comm_t handle) : handle_(handle) {}
  Comm(Comm &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  Comm &operator=(Comm &&o) noexcept {
    if (this != &o) {
      reset();
      handle_ = std::exchange(o.handle_, nullptr);
    }
    return *this;
  }
  ~Comm() { reset(); }

  collplan_comm_t get() const { return handle_; }
  int rank() const {
    int r = 0;
    check(collplan_comm_rank(handle_, &r));
    return r;
  }
  int size() const {
    int n = 0;
    check(collplan_comm_size(handle_, &n));
    return n;
  }
  /// The algorithm of the plan the last call ran ("ring", "pairwise", ...).
  std::string lastAlgorithm() const { return collplan_comm_last_algorithm(handle_); }

  /// Buffer memory peers read in place (collplan_mem_alloc); free with free() or let the
  /// communicator free it when destroyed.
  void *alloc(size_t bytes) {
    void *p = nullptr;
    check(collplan_mem_alloc(handle_, bytes, &p));
    return p;
  }
  void free(void *p) { check(collplan_mem_free(handle_, p)); }

  // Untyped calls: the same arguments as the C functions.
  void allreduce(const void *send, void *recv, size_t count, collplan_dtype_t dtype,
                 collplan_op_t op) {
    check(collplan_allreduce(handle_, send, recv, count, dtype, op));
  }
  void allgather(const void *send, void *recv, size_t count, collplan_dtype_t dtype) {
    check(collplan_allgather(handle_, send, recv, count, dtype));
  }
  void reduceScatter(const void *send, void *recv, size_t count, collplan_dtype_t dtype,
                     collplan_op_t op) {
    check(collplan_reduce_scatter(handle_, send, recv, count, dtype, op));
  }
  void alltoall(const void *send, void *recv, size_t count, collplan_dtype_t dtype) {
    check(collplan_alltoall(handle_, send, recv, count, dtype));
  }
  void broadcast(const void *send, void *recv, size_t count, collplan_dtype_t dtype, int root) {
    check(collplan_broadcast(handle_, send, recv, count, dtype, root));
  }
  void reduce(const void *send, void *recv, size_t count, collplan_dtype_t dtype,
              collplan_op_t op, int root) {
    check(collplan_reduce(handle_, send, recv, count, dtype, op, root));
  }
  void gather(const void *send, void *recv, size_t count, collplan_dtype_t dtype, int root) {
    check(collplan_gather(handle_, send, recv, count, dtype, root));
  }
  void scatter(const void *send, void *recv, size_t count, collplan_dtype_t dtype, int root) {
    check(collplan_scatter(handle_, send, recv, count, dtype, root));
  }
  void barrier() { check(collplan_barrier(handle_)); }
  void call(const collplan_call_t &c) { check(collplan_call(handle_, &c)); }

  // Typed calls: the dtype follows from T.
  template <typename T> void allreduce(const T *send, T *recv, size_t count, collplan_op_t op) {
    allreduce(static_cast<const void *>(send), recv, count, DTypeOf<T>::value, op);
  }
  template <typename T> void allgather(const T *send, T *recv, size_t count) {
    allgather(static_cast<const void *>(send), recv, count, DTypeOf<T>::value);
  }
  template <typename T>
  void reduceScatter(const T *send, T *recv, size_t count, collplan_op_t op) {
    reduceScatter(static_cast<const void *>(send), recv, count, DTypeOf<T>::value, op);
  }
  template <typename T> void alltoall(const T *send, T *recv, size_t count) {
    alltoall(static_cast<const void *>(send), recv, count, DTypeOf<T>::value);
  }
  template <typename T> void broadcast(const T *send, T *recv, size_t count, int root) {
    broadcast(static_cast<const void *>(send), recv, count, DTypeOf<T>::value, root);
  }

private:
  void reset() {
    if (handle_) collplan_comm_destroy(handle_);
    handle_ = nullptr;
  }
  collplan_comm_t handle_ = nullptr;
};

/// A world: all ranks of a cpu-threads job, or this process's rank of a cpu-shm job.
class World {
public:
  explicit World(const collplan_config_t &config) { check(collplan_world_create(&config, &handle_)); }
  World(World &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  World &operator=(World &&o) noexcept {
    if (this != &o) {
      reset();
      handle_ = std::exchange(o.handle_, nullptr);
    }
    return *this;
  }
  World(const World &) = delete;
  World &operator=(const World &) = delete;
  ~World() { reset(); }

  /// A cpu-threads world of `ranks` ranks; `bundle` / `topology` may be null.
  static World threads(int ranks, const char *bundle = nullptr, const char *topology = nullptr) {
    collplan_config_t c;
    collplan_config_init(&c);
    c.backend = "cpu-threads";
    c.ranks = ranks;
    c.bundle_file = bundle;
    c.topology_file = topology;
    return World(c);
  }
  /// This process's rank of a cpu-shm job named `job`.
  static World shm(const char *job, int ranks, int rank, const char *bundle = nullptr,
                   const char *topology = nullptr) {
    collplan_config_t c;
    collplan_config_init(&c);
    c.backend = "cpu-shm";
    c.ranks = ranks;
    c.rank = rank;
    c.shm_job = job;
    c.bundle_file = bundle;
    c.topology_file = topology;
    return World(c);
  }
  /// The world collplan-shm-launch describes in the environment (collplan_config_from_env),
  /// with `backend` and `ranks` where the environment sets none.
  static World fromEnv(const char *backend = nullptr, int ranks = 0) {
    collplan_config_t c;
    collplan_config_init(&c);
    c.backend = backend;
    c.ranks = ranks;
    check(collplan_config_from_env(&c));
    return World(c);
  }

  collplan_world_t get() const { return handle_; }
  int ranks() const {
    int n = 0;
    check(collplan_world_ranks(handle_, &n));
    return n;
  }
  /// This process's rank in a cpu-shm world, -1 in a cpu-threads world.
  int localRank() const {
    int r = -1;
    check(collplan_world_local_rank(handle_, &r));
    return r;
  }
  /// The communicator of `rank`.
  Comm comm(int rank) {
    collplan_comm_t c = nullptr;
    check(collplan_comm_create(handle_, rank, &c));
    return Comm(c);
  }
  /// Runs body(Comm&) on one thread per rank (cpu-threads) and joins them; rethrows the first
  /// rank's exception (Error or anything else body threw).
  template <typename Body> void runThreads(Body &&body) {
    const int n = ranks();
    std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
    std::vector<Comm> comms;
    for (int r = 0; r < n; ++r) comms.push_back(comm(r));
    std::vector<std::thread> threads;
    for (int r = 0; r < n; ++r)
      threads.emplace_back([&, r] {
        try {
          body(comms[size_t(r)]);
        } catch (...) {
          errors[size_t(r)] = std::current_exception();
        }
      });
    for (std::thread &t : threads) t.join();
    for (std::exception_ptr &e : errors)
      if (e) std::rethrow_exception(e);
  }

private:
  void reset() {
    if (handle_) collplan_world_destroy(handle_);
    handle_ = nullptr;
  }
  collplan_world_t handle_ = nullptr;
};

}  // namespace collplan
