/* collplan_bench_mpi_allreduce: the same f32 sweep with Open MPI's MPI_Allreduce (baseline). */
#include "SweepSizes.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int compareDoubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const size_t maxCount = kSweepBytes[kSweepSizes - 1] / 4;
  float *send = malloc(maxCount * sizeof(float)), *recv = malloc(maxCount * sizeof(float));
  double *times = malloc(256 * sizeof(double));
  for (size_t i = 0; i < maxCount; ++i) send[i] = 1.0f;
  if (rank == 0) {
    printf("# backend=mpi ranks=%d  (median of reps; time = slowest rank)\n", ranks);
    printf("%12s %10s %6s %12s %10s %10s\n", "size", "count", "type", "time(us)", "algbw", "busbw");
  }
  for (int s = 0; s < kSweepSizes; ++s) {
    const int count = (int)(kSweepBytes[s] / 4);
    const int reps = sweepReps(kSweepBytes[s]);
    for (int w = 0; w < 3; ++w)
      MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int r = 0; r < reps; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double t = MPI_Wtime() - t0;
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      times[r] = t;
    }
    qsort(times, (size_t)reps, sizeof(double), compareDoubles);
    const double t = times[reps / 2], algbw = (double)kSweepBytes[s] / t / 1e9;
    if (rank == 0)
      printf("%12zu %10d %6s %12.2f %10.3f %10.3f\n", kSweepBytes[s], count, "float", t * 1e6,
             algbw, algbw * 2.0 * (ranks - 1) / ranks);
    fflush(stdout);
  }
  free(send);
  free(recv);
  free(times);
  MPI_Finalize();
  return 0;
}
