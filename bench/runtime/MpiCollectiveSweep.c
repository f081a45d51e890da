/* MPI's own collectives timed the way collplan times its plans: the MPI baseline of plan-bench
 * (built as collplan-mpi-baseline) and of the issue-3 allreduce sweep (collplan_bench_mpi_allreduce).
 *   mpirun -np N prog                  f32 MPI_Allreduce over SweepSizes.h, as a table
 *   mpirun -np N prog --collective allgather --dtype f32 --op sum --root 0 --warmup 3
 *                     --points COUNT:REPS,COUNT:REPS,...
 *                                      one "row COUNT TIME_US" line per point (rank 0)
 * COUNT is what each rank passes to the call (per rank block for allgather, reduce_scatter,
 * alltoall, gather and scatter). Per point: warm-up calls, then repetitions of {barrier; time one
 * call; allreduce(max) of the times}; the median of the slowest rank's times is reported. */
#include "SweepSizes.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
/* Sanitizer builds: Open MPI keeps allocations past MPI_Finalize by design, which LeakSanitizer
 * would report as this program's leaks (in libmpi / libopen-pal, not in this file). */
const char *__asan_default_options(void) { return "detect_leaks=0"; }
#endif

typedef struct {
  const char *collective;
  MPI_Datatype type;
  size_t typeSize;
  MPI_Op op;
  int root;
} Call;

static int compareDoubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Runs one call; returns 0 or 1 for an unknown collective. */
static int runCall(const Call *c, void *send, void *recv, int count) {
  const char *k = c->collective;
  MPI_Comm w = MPI_COMM_WORLD;
  if (!strcmp(k, "allreduce")) MPI_Allreduce(send, recv, count, c->type, c->op, w);
  else if (!strcmp(k, "allgather")) MPI_Allgather(send, count, c->type, recv, count, c->type, w);
  else if (!strcmp(k, "reduce_scatter")) MPI_Reduce_scatter_block(send, recv, count, c->type, c->op, w);
  else if (!strcmp(k, "alltoall")) MPI_Alltoall(send, count, c->type, recv, count, c->type, w);
  else if (!strcmp(k, "broadcast")) MPI_Bcast(recv, count, c->type, c->root, w);
  else if (!strcmp(k, "reduce")) MPI_Reduce(send, recv, count, c->type, c->op, c->root, w);
  else if (!strcmp(k, "gather")) MPI_Gather(send, count, c->type, recv, count, c->type, c->root, w);
  else if (!strcmp(k, "scatter")) MPI_Scatter(send, count, c->type, recv, count, c->type, c->root, w);
  else if (!strcmp(k, "barrier")) MPI_Barrier(w);
  else return 1;
  return 0;
}

/* Sets every element of `buffer` to 1 in the call's type (no denormals, no overflow in a sum). */
static void fillOnes(const Call *c, void *buffer, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (c->type == MPI_FLOAT) ((float *)buffer)[i] = 1.0f;
    else if (c->type == MPI_DOUBLE) ((double *)buffer)[i] = 1.0;
    else if (c->typeSize == 4) ((int32_t *)buffer)[i] = 1;
    else if (c->typeSize == 8) ((int64_t *)buffer)[i] = 1;
    else ((uint8_t *)buffer)[i] = 1;
  }
}

/* The median over `reps` of the slowest rank's time of one call, in seconds. */
static double timeCall(const Call *c, void *send, void *recv, int count, int warmup, int reps) {
  double *times = malloc((size_t)reps * sizeof(double));
  for (int i = 0; i < warmup; ++i) runCall(c, send, recv, count);
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    runCall(c, send, recv, count);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times[r] = t;
  }
  qsort(times, (size_t)reps, sizeof(double), compareDoubles);
  const double t = times[reps / 2];
  free(times);
  return t;
}

/* The issue-3 sweep: f32 MPI_Allreduce over SweepSizes.h, printed as a table. */
static void allreduceSweep(int rank, int ranks) {
  const Call c = {"allreduce", MPI_FLOAT, 4, MPI_SUM, 0};
  const size_t maxCount = kSweepBytes[kSweepSizes - 1] / 4;
  float *send = malloc(maxCount * sizeof(float)), *recv = malloc(maxCount * sizeof(float));
  fillOnes(&c, send, maxCount);
  if (rank == 0) {
    printf("# backend=mpi ranks=%d  (median of reps; time = slowest rank)\n", ranks);
    printf("%12s %10s %6s %12s %10s %10s\n", "size", "count", "type", "time(us)", "algbw", "busbw");
  }
  for (int s = 0; s < kSweepSizes; ++s) {
    const int count = (int)(kSweepBytes[s] / 4);
    const double t = timeCall(&c, send, recv, count, 3, sweepReps(kSweepBytes[s]));
    const double algbw = (double)kSweepBytes[s] / t / 1e9;
    if (rank == 0)
      printf("%12zu %10d %6s %12.2f %10.3f %10.3f\n", kSweepBytes[s], count, "float", t * 1e6,
             algbw, algbw * 2.0 * (ranks - 1) / ranks);
    fflush(stdout);
  }
  free(send);
  free(recv);
}

static int fail(int rank, const char *message, const char *value) {
  if (rank == 0) fprintf(stderr, "collplan-mpi-baseline: %s%s\n", message, value ? value : "");
  MPI_Finalize();
  return 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc == 1) {
    allreduceSweep(rank, ranks);
    MPI_Finalize();
    return 0;
  }
  Call c = {"allreduce", MPI_FLOAT, 4, MPI_SUM, 0};
  int warmup = 3;
  const char *points = NULL;
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *key = argv[i], *v = argv[i + 1];
    if (!strcmp(key, "--collective")) c.collective = v;
    else if (!strcmp(key, "--root")) c.root = atoi(v);
    else if (!strcmp(key, "--warmup")) warmup = atoi(v);
    else if (!strcmp(key, "--points")) points = v;
    else if (!strcmp(key, "--dtype")) {
      if (!strcmp(v, "f32")) c.type = MPI_FLOAT, c.typeSize = 4;
      else if (!strcmp(v, "f64")) c.type = MPI_DOUBLE, c.typeSize = 8;
      else if (!strcmp(v, "i32")) c.type = MPI_INT32_T, c.typeSize = 4;
      else if (!strcmp(v, "i64")) c.type = MPI_INT64_T, c.typeSize = 8;
      else if (!strcmp(v, "u8")) c.type = MPI_UINT8_T, c.typeSize = 1;
      else return fail(rank, "unsupported --dtype ", v);
    } else if (!strcmp(key, "--op")) {
      if (!strcmp(v, "sum")) c.op = MPI_SUM;
      else if (!strcmp(v, "prod")) c.op = MPI_PROD;
      else if (!strcmp(v, "min")) c.op = MPI_MIN;
      else if (!strcmp(v, "max")) c.op = MPI_MAX;
      else return fail(rank, "unknown --op ", v);
    } else
      return fail(rank, "unknown argument ", key);
  }
  if (!points) return fail(rank, "missing --points COUNT:REPS,...", NULL);
  if (c.root < 0 || c.root >= ranks) return fail(rank, "--root out of range", NULL);

  /* Every buffer holds `ranks` blocks of the largest count, enough for any collective. */
  size_t maxCount = 0;
  for (const char *p = points; *p;) {
    const size_t count = strtoull(p, NULL, 10);
    if (count > maxCount) maxCount = count;
    p = strchr(p, ',');
    if (!p) break;
    ++p;
  }
  const size_t bytes = (maxCount ? maxCount : 1) * (size_t)ranks * c.typeSize;
  void *send = malloc(bytes), *recv = malloc(bytes);
  if (!send || !recv) return fail(rank, "out of memory", NULL);
  /* Real data in every page, as plan-bench gives collplan: an untouched calloc buffer maps every
   * page to the kernel's one zero page, so reading it would cost a 4 KiB cache hit, not memory. */
  fillOnes(&c, send, bytes / c.typeSize);
  memset(recv, 0, bytes);
  /* A zero-count call checks the collective's name on every rank. */
  if (runCall(&c, send, recv, 0) != 0) return fail(rank, "unknown --collective ", c.collective);
  for (const char *p = points; *p;) {
    char *end = NULL;
    const unsigned long long count = strtoull(p, &end, 10);
    int reps = 1;
    if (end && *end == ':') reps = atoi(end + 1);
    if (reps < 1) reps = 1;
    const double t = timeCall(&c, send, recv, (int)count, warmup, reps);
    if (rank == 0) printf("row %llu %.3f\n", count, t * 1e6);
    fflush(stdout);
    p = strchr(p, ',');
    if (!p) break;
    ++p;
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
