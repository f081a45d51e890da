/* collplan.h: the C API of the collplan runtime (communicators and collective calls). */
#ifndef COLLPLAN_H
#define COLLPLAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status codes ------------------------------------------------------------------------- */

/** Every function returns a status; on failure collplan_last_error() says what and why. */
typedef enum collplan_status {
  COLLPLAN_SUCCESS = 0,
  COLLPLAN_ERROR_INVALID_ARGUMENT = 1, /**< bad value: unknown backend/dtype/op, root out of range */
  COLLPLAN_ERROR_NULL_POINTER = 2,     /**< a required pointer is NULL */
  COLLPLAN_ERROR_BUFFER_TOO_SMALL = 3, /**< a stated buffer size is below what the call needs */
  COLLPLAN_ERROR_MISALIGNED_BUFFER = 4,/**< a buffer is not aligned to its dtype's size */
  COLLPLAN_ERROR_UNSUPPORTED = 5,      /**< valid, but not available in this build or backend */
  COLLPLAN_ERROR_FILE = 6,             /**< a topology or bundle file could not be loaded */
  COLLPLAN_ERROR_PLAN = 7,             /**< a plan cannot run on this communicator */
  COLLPLAN_ERROR_SYSTEM = 8,           /**< an OS call failed (shared memory, threads) */
  COLLPLAN_ERROR_TIMEOUT = 9,          /**< a peer did not answer in time (COLLPLAN_TIMEOUT_S) */
  COLLPLAN_ERROR_INTERNAL = 10,        /**< a bug in collplan */
  COLLPLAN_STATUS_MIN_ENUM = -0x7fffffff - 1, /**< not a status (see the enums below) */
  COLLPLAN_STATUS_MAX_ENUM = 0x7fffffff         /**< not a status */
} collplan_status_t;

/** A constant name for a status ("COLLPLAN_ERROR_NULL_POINTER: a required pointer is NULL"). */
const char *collplan_error_string(collplan_status_t status);
/** The message of this thread's most recent failed call (details: which argument, which rank,
 *  which file and field); "" when none failed. Successful calls leave it unchanged; the pointer
 *  stays valid until this thread's next failing call. */
const char *collplan_last_error(void);

/* ---- Types and values ---------------------------------------------------------------------- */
/* Each enum ends with *_MIN_ENUM and *_MAX_ENUM values that are not valid arguments: they make
 * the type span every int, so any int a caller passes (negative ones too) is a value of the
 * type, which the library rejects with COLLPLAN_ERROR_INVALID_ARGUMENT (rather than C++ reading
 * an out-of-range enum, which is undefined). */

typedef enum collplan_dtype {
  COLLPLAN_F32 = 0, COLLPLAN_F64 = 1, COLLPLAN_F16 = 2, COLLPLAN_BF16 = 3,
  COLLPLAN_I32 = 4, COLLPLAN_I64 = 5, COLLPLAN_U8 = 6,
  COLLPLAN_DTYPE_MIN_ENUM = -0x7fffffff - 1, COLLPLAN_DTYPE_MAX_ENUM = 0x7fffffff
} collplan_dtype_t;

typedef enum collplan_op {
  COLLPLAN_SUM = 0, COLLPLAN_PROD = 1, COLLPLAN_MIN = 2, COLLPLAN_MAX = 3,
  COLLPLAN_OP_MIN_ENUM = -0x7fffffff - 1, COLLPLAN_OP_MAX_ENUM = 0x7fffffff
} collplan_op_t;

typedef enum collplan_collective {
  COLLPLAN_ALLREDUCE = 0, COLLPLAN_ALLGATHER = 1, COLLPLAN_REDUCE_SCATTER = 2,
  COLLPLAN_ALLTOALL = 3, COLLPLAN_BROADCAST = 4, COLLPLAN_REDUCE = 5, COLLPLAN_GATHER = 6,
  COLLPLAN_SCATTER = 7, COLLPLAN_BARRIER = 8,
  COLLPLAN_COLLECTIVE_MIN_ENUM = -0x7fffffff - 1, COLLPLAN_COLLECTIVE_MAX_ENUM = 0x7fffffff
} collplan_collective_t;

/** Size in bytes of one element of `dtype` (0 for an invalid value). */
size_t collplan_dtype_size(collplan_dtype_t dtype);

/* ---- Worlds and communicators ------------------------------------------------------------- */

/** A world is the set of ranks of one job as seen by this process: for cpu-threads all ranks
 *  (one communicator per thread), for cpu-shm this process's rank only. A communicator is one
 *  rank's handle; every collective is called by every rank of the world with matching
 *  arguments, in the same order. A communicator is used by one thread at a time. */
typedef struct collplan_world *collplan_world_t;
typedef struct collplan_comm *collplan_comm_t;

/** How to build a world. Start from collplan_config_init (or _from_env) and set the fields;
 *  there are no hidden defaults: every field a backend needs must be set. */
typedef struct collplan_config {
  const char *backend;       /**< "cpu-threads", "cpu-shm" or "cuda" (collplan_cuda.h) */
  int ranks;                 /**< ranks in the job, >= 1 */
  int rank;                  /**< cpu-shm, and cuda over processes: this process's rank;
                                  cpu-threads, and cuda in one process: -1 (all ranks) */
  const char *shm_job;       /**< cpu-shm and cuda over processes: job name shared by all its
                                  processes; else NULL */
  const char *topology_file; /**< topology JSON (checked against the bundle), or NULL */
  const char *bundle_file;   /**< tuned plan bundle, or NULL for the built-in plans */
  int fixed_reduction_order; /**< nonzero (or COLLPLAN_FIXED_REDUCTION_ORDER=1): every reduction
                                  must fold in rank order, bitwise identical at every size. The
                                  bundle must be tuned with plan-tune --fixed-reduction-order
                                  (else world creation fails), and a reducing call the bundle
                                  does not cover fails (the built-in plans fix no order). */
} collplan_config_t;

/** Sets backend/shm_job/files to NULL, ranks and fixed_reduction_order to 0 and rank to -1. */
void collplan_config_init(collplan_config_t *config);
/** Overrides the fields of `config` (set up by collplan_config_init, and the defaults the caller
 *  wants) with the environment that collplan-shm-launch sets: backend, ranks, rank and shm_job
 *  from COLLPLAN_BACKEND, COLLPLAN_RANKS, COLLPLAN_RANK, COLLPLAN_SHM_JOB, and the files from
 *  COLLPLAN_TOPOLOGY / COLLPLAN_BUNDLE, and fixed_reduction_order from
 *  COLLPLAN_FIXED_REDUCTION_ORDER (0 or 1). A variable that is not set keeps the field. Fails naming
 *  the variable when one is malformed, or when neither it nor the field gives what the backend
 *  needs (a backend; a rank and a job for one rank per process). The strings point into the
 *  environment. */
collplan_status_t collplan_config_from_env(collplan_config_t *config);

/** Creates a world. cpu-threads: allocates the shared state of all `ranks`. cpu-shm: attaches
 *  this process (`rank`) to the job's shared memory; rank 0 creates it, the others wait for it.
 *  Loads and validates the bundle (its rank count, backend and, with a topology, fingerprint). */
collplan_status_t collplan_world_create(const collplan_config_t *config, collplan_world_t *world);
/** Destroys a world; every communicator of it must have been destroyed. NULL is allowed. */
collplan_status_t collplan_world_destroy(collplan_world_t world);
collplan_status_t collplan_world_ranks(collplan_world_t world, int *ranks);
/** The rank this process holds in a cpu-shm world; -1 for cpu-threads (it holds every rank). */
collplan_status_t collplan_world_local_rank(collplan_world_t world, int *rank);

/** The communicator of `rank` (cpu-threads: any rank, once each; cpu-shm: the world's rank). */
collplan_status_t collplan_comm_create(collplan_world_t world, int rank, collplan_comm_t *comm);
collplan_status_t collplan_comm_destroy(collplan_comm_t comm);
collplan_status_t collplan_comm_rank(collplan_comm_t comm, int *rank);
collplan_status_t collplan_comm_size(collplan_comm_t comm, int *ranks);

/** Runs fn(comm, user) on one new thread per rank of a cpu-threads world, each with its own
 *  communicator, and joins them. Returns the first failure: a communicator that could not be
 *  made, or a non-zero status returned by fn (its message is kept for collplan_last_error). */
typedef collplan_status_t (*collplan_thread_fn)(collplan_comm_t comm, void *user);
collplan_status_t collplan_run_threads(collplan_world_t world, collplan_thread_fn fn, void *user);

/* ---- Collectives ---------------------------------------------------------------------------
 * count follows NCCL/MPI: the per-rank block for allgather, reduce_scatter, alltoall, gather
 * and scatter (send holds count and recv ranks*count elements for allgather; the reverse for
 * reduce_scatter; both ranks*count for alltoall), the whole message otherwise. count may be 0
 * or smaller than the rank count. In-place: pass the same pointer (allreduce, broadcast,
 * alltoall, reduce at the root) or the NCCL offsets (allgather: send == recv + rank*count;
 * reduce_scatter: recv == send + rank*count; gather at the root: send == recv + root*count;
 * scatter at the root: recv == send + root*count); other overlaps are handled by a copy.
 * Buffers a rank does not use may be NULL (broadcast send on non-roots, reduce/gather recv on
 * non-roots, scatter send on non-roots). Pointers must be aligned to the dtype's size. */
collplan_status_t collplan_allreduce(collplan_comm_t comm, const void *send, void *recv,
                                     size_t count, collplan_dtype_t dtype, collplan_op_t op);
collplan_status_t collplan_allgather(collplan_comm_t comm, const void *send, void *recv,
                                     size_t count, collplan_dtype_t dtype);
collplan_status_t collplan_reduce_scatter(collplan_comm_t comm, const void *send, void *recv,
                                          size_t count, collplan_dtype_t dtype, collplan_op_t op);
collplan_status_t collplan_alltoall(collplan_comm_t comm, const void *send, void *recv,
                                    size_t count, collplan_dtype_t dtype);
collplan_status_t collplan_broadcast(collplan_comm_t comm, const void *send, void *recv,
                                     size_t count, collplan_dtype_t dtype, int root);
collplan_status_t collplan_reduce(collplan_comm_t comm, const void *send, void *recv,
                                  size_t count, collplan_dtype_t dtype, collplan_op_t op,
                                  int root);
collplan_status_t collplan_gather(collplan_comm_t comm, const void *send, void *recv,
                                  size_t count, collplan_dtype_t dtype, int root);
collplan_status_t collplan_scatter(collplan_comm_t comm, const void *send, void *recv,
                                   size_t count, collplan_dtype_t dtype, int root);
collplan_status_t collplan_barrier(collplan_comm_t comm);

/** Unknown buffer size in collplan_call_t: the size is not checked. */
#define COLLPLAN_SIZE_UNKNOWN ((size_t)-1)

/** Any collective with the caller's buffer sizes, which are checked against what the call
 *  needs (COLLPLAN_ERROR_BUFFER_TOO_SMALL). op is ignored by non-reducing collectives and root
 *  by unrooted ones. */
typedef struct collplan_call {
  collplan_collective_t collective;
  const void *send;
  size_t send_bytes; /**< bytes available at send, or COLLPLAN_SIZE_UNKNOWN */
  void *recv;
  size_t recv_bytes; /**< bytes available at recv, or COLLPLAN_SIZE_UNKNOWN */
  size_t count;
  collplan_dtype_t dtype;
  collplan_op_t op;
  int root;
} collplan_call_t;
collplan_status_t collplan_call(collplan_comm_t comm, const collplan_call_t *call);

/** Memory for the buffers of collective calls on `comm` (page-aligned, zero-filled). On cpu-shm
 *  it is shared with the job's other processes, so values sent from it are read in place by
 *  the receivers (zero copy, like cpu-threads); buffers from elsewhere move by one kernel copy
 *  (large values) or through staging (small ones). Elsewhere it is ordinary memory. Free it
 *  with collplan_mem_free on the same communicator before destroying it (the communicator
 *  frees what is left). bytes must be > 0 and at most PTRDIFF_MAX. */
collplan_status_t collplan_mem_alloc(collplan_comm_t comm, size_t bytes, void **ptr);
/** Frees memory from collplan_mem_alloc; NULL is a no-op; any other pointer is an error. */
collplan_status_t collplan_mem_free(collplan_comm_t comm, void *ptr);

/** The algorithm of the plan the last call on `comm` ran (e.g. "ring"), for diagnostics. */
const char *collplan_comm_last_algorithm(collplan_comm_t comm);

#ifdef __cplusplus
}
#endif

#endif /* COLLPLAN_H */
