/* collplan_cuda.h: collectives on device memory, enqueued on CUDA streams (the cuda backend). */
#ifndef COLLPLAN_CUDA_H
#define COLLPLAN_CUDA_H

#include "collplan.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A cuda world (collplan_config_t: backend "cuda", ranks N) holds every rank in this process
 * (rank -1), or one rank per process (rank r, shm_job the job name every process shares, as
 * collplan-shm-launch sets them: collplan_config_from_env, then backend = "cuda"), whose peers'
 * memory is mapped through CUDA IPC. COLLPLAN_CUDA_DEVICES places the ranks: unset, every rank of
 * one process on device 0 (virtual ranks, each with its own buffers), or rank r of a job of
 * processes on device r % devices; "0,1,2,3", rank r on the r-th device listed (devices that
 * are peers of each other). Buffers are device memory of the rank's device (collplan_mem_alloc
 * gives such memory, or cudaMalloc on that device). Synchronize the streams before
 * collplan_world_destroy; in a job of processes it waits until every process is destroying its
 * world, so no process frees memory a peer may still read. */

/** Enqueues `call` for the communicator's rank on `stream`, after the work already on it, and
 *  returns without waiting for the device; the call can be captured in a CUDA graph. The
 *  ranks of one device run in one kernel launch: their calls wait until every one of them has
 *  made its call (from any thread), then launch on the stream of those calls, which must be
 *  the same. Calls of ranks on other devices go on their own streams. A failure a kernel
 *  records (a peer that never made its call: COLLPLAN_ERROR_TIMEOUT after COLLPLAN_TIMEOUT_S)
 *  is returned by the next call, and every later one. */
collplan_status_t collplan_cuda_call(collplan_comm_t comm, const collplan_call_t *call,
                                     cudaStream_t stream);

/** Brackets the calls one thread makes for several ranks (as NCCL's group calls do):
 *  collplan_group_end fails, naming them, when a device's ranks did not all make their call in
 *  the group, instead of leaving those calls waiting. Groups nest; only the outermost end
 *  checks. */
collplan_status_t collplan_group_start(void);
collplan_status_t collplan_group_end(void);

/** The CUDA device of the communicator's rank. */
collplan_status_t collplan_cuda_comm_device(collplan_comm_t comm, int *device);

#ifdef __cplusplus
}
#endif

#endif /* COLLPLAN_CUDA_H */
