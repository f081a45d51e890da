/* example_mpi.c: allreduce and allgather over MPI processes with the C API (built and run under
 * mpirun by the tests). */
#include "collplan_mpi.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 1000

/* Each rank contributes rank+1 everywhere and its rank as its allgather block. */
static collplan_status_t work(collplan_comm_t comm, int rank, int ranks) {
  float send[COUNT], recv[COUNT];
  for (int i = 0; i < COUNT; ++i) send[i] = (float)(rank + 1);
  collplan_status_t s = collplan_allreduce(comm, send, recv, COUNT, COLLPLAN_F32, COLLPLAN_SUM);
  if (s != COLLPLAN_SUCCESS) return s;
  for (int i = 0; i < COUNT; ++i)
    if (recv[i] != (float)(ranks * (ranks + 1) / 2)) return COLLPLAN_ERROR_INTERNAL;
  /* In place: pass the same buffer. */
  s = collplan_allreduce(comm, recv, recv, COUNT, COLLPLAN_F32, COLLPLAN_MAX);
  if (s != COLLPLAN_SUCCESS) return s;
  int *all = malloc(sizeof(int) * (size_t)ranks);
  if (!all) return COLLPLAN_ERROR_SYSTEM;
  s = collplan_allgather(comm, &rank, all, 1, COLLPLAN_I32);
  for (int r = 0; s == COLLPLAN_SUCCESS && r < ranks; ++r)
    if (all[r] != r) s = COLLPLAN_ERROR_INTERNAL;
  free(all);
  return s == COLLPLAN_SUCCESS ? collplan_barrier(comm) : s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  /* NULL: the built-in plans; or a bundle tuned for backend "mpi" with this many ranks. */
  collplan_comm_t comm = NULL;
  collplan_status_t s = collplan_comm_create_mpi(MPI_COMM_WORLD, NULL, &comm);
  if (s == COLLPLAN_SUCCESS) s = work(comm, rank, ranks);
  if (s != COLLPLAN_SUCCESS)
    fprintf(stderr, "rank %d: %s\n%s\n", rank, collplan_error_string(s), collplan_last_error());
  collplan_comm_destroy(comm); /* before MPI_Finalize */
  if (s == COLLPLAN_SUCCESS && rank == 0) printf("allreduce and allgather on %d ranks: ok\n", ranks);
  MPI_Finalize();
  return s == COLLPLAN_SUCCESS ? 0 : 1;
}
