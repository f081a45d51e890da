/* collplan_mpi.h: communicators over MPI processes (the mpi backend); includes mpi.h. */
#ifndef COLLPLAN_MPI_H
#define COLLPLAN_MPI_H

#include "collplan.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** This process's communicator over the processes of `comm`: rank and size are comm's, every
 *  collective of collplan.h runs on it (in place and out of place), and every process of comm
 *  must create it (MPI_Comm_dup is collective), in the same order as its other communicators.
 *  collplan's messages travel on its own duplicate of comm, so the caller's messages on comm
 *  never mix with them. `bundle_path` is a plan bundle tuned for backend "mpi" with comm's
 *  size (checked), or NULL for the built-in plans. MPI must be initialised (MPI_Init); destroy
 *  the communicator (collplan_comm_destroy) before MPI_Finalize, and make its calls from one
 *  thread at a time (MPI_THREAD_FUNNELED or better when other threads call MPI). */
collplan_status_t collplan_comm_create_mpi(MPI_Comm comm, const char *bundle_path,
                                           collplan_comm_t *out);

#ifdef __cplusplus
}
#endif

#endif /* COLLPLAN_MPI_H */
