/* An ordinary MPI program (it knows nothing of collplan) that checks the results of every
 * collective libcollplan-mpi.so defines: predefined and derived datatypes, MPI_IN_PLACE forms,
 * misaligned buffers, sub-communicators, and the calls that must go to the MPI library (user and
 * bitwise ops, a datatype collplan does not reduce, non-blocking calls, an intercommunicator, a
 * negative count).
 * Rank 0 prints "expect: MPI_X: A by collplan, B to MPI" for each function, from its own list of
 * calls, for the test script to compare with the library's report. Exits 1 on a wrong result. */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALLREDUCE, ALLGATHER, REDUCE_SCATTER_BLOCK, ALLTOALL, BCAST, REDUCE, GATHER, SCATTER,
       BARRIER, IALLREDUCE, FUNCTIONS };
static const char *names[FUNCTIONS] = {
    "MPI_Allreduce", "MPI_Allgather", "MPI_Reduce_scatter_block", "MPI_Alltoall", "MPI_Bcast",
    "MPI_Reduce", "MPI_Gather", "MPI_Scatter", "MPI_Barrier", "MPI_Iallreduce"};
static long byCollplan[FUNCTIONS], toMpi[FUNCTIONS];
static int rank, size, failures;

/* Records one call of `fn` on a communicator collplan serves (`ours`) or not. */
static void called(int fn, int ours) { (ours ? byCollplan : toMpi)[fn]++; }

static void check(int ok, const char *what, long index) {
  if (ok) return;
  if (failures++ < 10) fprintf(stderr, "rank %d: wrong result: %s at %ld\n", rank, what, index);
}

/* The value rank r contributes at index i: small integers, so sums are exact in any order. */
static int value(int r, long i) { return (int)((r * 7 + i * 3) % 11) - 3; }

static void testAllreduce(MPI_Comm comm, int crank, int csize, int ours, long n) {
  float *in = calloc(n, sizeof(float)), *out = calloc(n, sizeof(float));
  for (long i = 0; i < n; ++i) in[i] = (float)value(crank, i);
  MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, comm);
  called(ALLREDUCE, ours);
  for (long i = 0; i < n; ++i) {
    long sum = 0;
    for (int r = 0; r < csize; ++r) sum += value(r, i);
    check(out[i] == (float)sum, "allreduce float sum", i);
  }
  MPI_Allreduce(MPI_IN_PLACE, in, (int)n, MPI_FLOAT, MPI_MAX, comm);
  called(ALLREDUCE, ours);
  for (long i = 0; i < n; ++i) {
    int max = value(0, i);
    for (int r = 1; r < csize; ++r) max = value(r, i) > max ? value(r, i) : max;
    check(in[i] == (float)max, "allreduce in place float max", i);
  }
  free(in);
  free(out);
}

/* Every predefined type collplan reduces, and a misaligned buffer. */
static void testReductionTypes(void) {
  long long ll = rank + 1, llMin = 0;
  MPI_Allreduce(&ll, &llMin, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  called(ALLREDUCE, 1);
  check(llMin == 1, "allreduce long long min", 0);
  int i32 = (rank % 3) + 1, prod = 0, expected = 1;
  for (int r = 0; r < size; ++r) expected *= (r % 3) + 1;
  MPI_Allreduce(&i32, &prod, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
  called(ALLREDUCE, 1);
  check(prod == expected, "allreduce int prod", 0);
  unsigned char u8[3] = {1, 2, 3}, u8sum[3];
  MPI_Allreduce(u8, u8sum, 3, MPI_UINT8_T, MPI_SUM, MPI_COMM_WORLD);
  called(ALLREDUCE, 1);
  check(u8sum[2] == (unsigned char)(3 * size), "allreduce uint8 sum", 2);
  /* Doubles at an odd address: collplan wants them aligned, the library copies them. */
  char *raw = malloc(8 * 33 + 1);
  double d[33];
  for (int k = 0; k < 33; ++k) d[k] = value(rank, k);
  memcpy(raw + 1, d, sizeof d);
  MPI_Allreduce(MPI_IN_PLACE, raw + 1, 33, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  called(ALLREDUCE, 1);
  memcpy(d, raw + 1, sizeof d);
  for (int k = 0; k < 33; ++k) {
    long sum = 0;
    for (int r = 0; r < size; ++r) sum += value(r, k);
    check(d[k] == (double)sum, "allreduce misaligned double sum", k);
  }
  free(raw);
}

static void absMax(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int k = 0; k < *len; ++k)
    if (abs(((int *)in)[k]) > abs(((int *)inout)[k])) ((int *)inout)[k] = ((int *)in)[k];
}

/* Reductions that stay with MPI: a user op, a bitwise op, MPI_SHORT, a derived type. */
static void testReductionFallbacks(void) {
  MPI_Op op;
  MPI_Op_create(absMax, 1, &op);
  int v = rank == size - 1 ? -100 : rank, r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_INT, op, MPI_COMM_WORLD);
  called(ALLREDUCE, 0);
  check(r == -100, "allreduce user op", 0);
  MPI_Op_free(&op);
  int bits = 1 << (rank % 31), all = 0, expected = 0;
  for (int k = 0; k < size; ++k) expected |= 1 << (k % 31);
  MPI_Allreduce(&bits, &all, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
  called(ALLREDUCE, 0);
  check(all == expected, "allreduce bor", 0);
  short s = 2, ssum = 0;
  MPI_Allreduce(&s, &ssum, 1, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD);
  called(ALLREDUCE, 0);
  check(ssum == 2 * size, "allreduce short sum", 0);
  MPI_Request request;
  int one = 1, total = 0;
  MPI_Iallreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  called(IALLREDUCE, 0);
  check(total == size, "iallreduce", 0);
}

static void testReduceAndScatterBlock(void) {
  const int n = 5, root = size - 1;
  int in[5], out[5];
  for (int k = 0; k < n; ++k) in[k] = out[k] = value(rank, k);
  MPI_Reduce(in, rank == root ? out : NULL, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  called(REDUCE, 1);
  for (int k = 0; k < n && rank == root; ++k) {
    int sum = 0;
    for (int r = 0; r < size; ++r) sum += value(r, k);
    check(out[k] == sum, "reduce int sum", k);
  }
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : in, in, n, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  called(REDUCE, 1);
  int *all = malloc(sizeof(int) * n * size), *mine = malloc(sizeof(int) * n);
  for (int k = 0; k < n * size; ++k) all[k] = value(rank, k);
  MPI_Reduce_scatter_block(all, mine, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  called(REDUCE_SCATTER_BLOCK, 1);
  for (int k = 0; k < n; ++k) {
    int sum = 0;
    for (int r = 0; r < size; ++r) sum += value(r, rank * n + k);
    check(mine[k] == sum, "reduce_scatter_block", k);
  }
  MPI_Reduce_scatter_block(MPI_IN_PLACE, all, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  called(REDUCE_SCATTER_BLOCK, 1);
  for (int k = 0; k < n; ++k) check(all[k] == mine[k], "reduce_scatter_block in place", k);
  free(all);
  free(mine);
}

static void testAllgatherAlltoall(void) {
  const int n = 3;
  int mine[3], *all = malloc(sizeof(int) * n * size), *back = malloc(sizeof(int) * n * size);
  for (int k = 0; k < n; ++k) mine[k] = value(rank, k);
  MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD);
  called(ALLGATHER, 1);
  for (int k = 0; k < n * size; ++k) check(all[k] == value(k / n, k % n), "allgather", k);
  memset(back, 0, sizeof(int) * n * size);
  memcpy(back + rank * n, mine, sizeof mine);
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, back, n, MPI_INT, MPI_COMM_WORLD);
  called(ALLGATHER, 1);
  for (int k = 0; k < n * size; ++k) check(back[k] == all[k], "allgather in place", k);
  /* Every other int of a 2n*size buffer: a derived receive type, packed by the library. */
  int *strided = calloc(2 * n * size, sizeof(int));
  MPI_Datatype everyOther;
  MPI_Type_vector(n, 1, 2, MPI_INT, &everyOther);
  MPI_Datatype block;
  MPI_Type_create_resized(everyOther, 0, (MPI_Aint)(2 * n * sizeof(int)), &block);
  MPI_Type_commit(&block);
  MPI_Allgather(mine, n, MPI_INT, strided, 1, block, MPI_COMM_WORLD);
  called(ALLGATHER, 1);
  for (int k = 0; k < n * size; ++k) {
    check(strided[2 * k] == all[k], "allgather derived type", k);
    check(strided[2 * k + 1] == 0, "allgather derived type gap", k);
  }
  MPI_Type_free(&block);
  MPI_Type_free(&everyOther);
  free(strided);
  for (int k = 0; k < n * size; ++k) all[k] = rank * 1000 + k;
  MPI_Alltoall(all, n, MPI_INT, back, n, MPI_INT, MPI_COMM_WORLD);
  called(ALLTOALL, 1);
  for (int k = 0; k < n * size; ++k)
    check(back[k] == (k / n) * 1000 + rank * n + k % n, "alltoall", k);
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_INT, MPI_COMM_WORLD);
  called(ALLTOALL, 1);
  for (int k = 0; k < n * size; ++k) check(all[k] == back[k], "alltoall in place", k);
  free(all);
  free(back);
}

static void testRooted(void) {
  const int root = size > 1 ? 1 : 0, n = 4;
  double d[4];
  for (int k = 0; k < n; ++k) d[k] = rank == root ? 0.5 + k : -1;
  MPI_Bcast(d, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  called(BCAST, 1);
  for (int k = 0; k < n; ++k) check(d[k] == 0.5 + k, "bcast double", k);
  int column[8] = {0};  /* a 4x2 matrix's first column as one derived element */
  MPI_Datatype col;
  MPI_Type_vector(4, 1, 2, MPI_INT, &col);
  MPI_Type_commit(&col);
  if (rank == root)
    for (int k = 0; k < 4; ++k) column[2 * k] = 10 + k;
  MPI_Bcast(column, 1, col, root, MPI_COMM_WORLD);
  called(BCAST, 1);
  for (int k = 0; k < 4; ++k) check(column[2 * k] == 10 + k && column[2 * k + 1] == 0,
                                    "bcast derived type", k);
  MPI_Type_free(&col);
  /* A negative count is MPI's to refuse: the call goes to MPI, which returns its error. */
  MPI_Comm errorsReturn;
  MPI_Comm_dup(MPI_COMM_WORLD, &errorsReturn);
  MPI_Comm_set_errhandler(errorsReturn, MPI_ERRORS_RETURN);
  check(MPI_Bcast(d, -1, MPI_DOUBLE, root, errorsReturn) != MPI_SUCCESS,
        "bcast of a negative count returns an error", 0);
  called(BCAST, 0);
  MPI_Comm_free(&errorsReturn);
  int *gathered = malloc(sizeof(int) * n * size), mine[4];
  for (int k = 0; k < n; ++k) mine[k] = value(rank, k);
  MPI_Gather(mine, n, MPI_INT, gathered, n, MPI_INT, root, MPI_COMM_WORLD);
  called(GATHER, 1);
  for (int k = 0; k < n * size && rank == root; ++k)
    check(gathered[k] == value(k / n, k % n), "gather", k);
  if (rank == root) memcpy(gathered + root * n, mine, sizeof mine);
  MPI_Gather(rank == root ? MPI_IN_PLACE : mine, n, MPI_INT, gathered, n, MPI_INT, root,
             MPI_COMM_WORLD);
  called(GATHER, 1);
  for (int k = 0; k < n * size && rank == root; ++k)
    check(gathered[k] == value(k / n, k % n), "gather in place", k);
  for (int k = 0; k < n * size; ++k) gathered[k] = rank == root ? 7 * k : -1;
  MPI_Scatter(gathered, n, MPI_INT, mine, n, MPI_INT, root, MPI_COMM_WORLD);
  called(SCATTER, 1);
  for (int k = 0; k < n; ++k) check(mine[k] == 7 * (rank * n + k), "scatter", k);
  MPI_Scatter(gathered, n, MPI_INT, rank == root ? MPI_IN_PLACE : mine, n, MPI_INT, root,
              MPI_COMM_WORLD);
  called(SCATTER, 1);
  for (int k = 0; k < n; ++k) check(mine[k] == 7 * (rank * n + k), "scatter in place", k);
  free(gathered);
  MPI_Barrier(MPI_COMM_WORLD);
  called(BARRIER, 1);
}

/* Split and duplicated communicators get collplan communicators of their own; an
 * intercommunicator between the two halves stays with MPI. */
static void testCommunicators(void) {
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int hrank, hsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  testAllreduce(half, hrank, hsize, 1, 1000);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  testAllreduce(dup, rank, size, 1, 100000);
  MPI_Comm_free(&dup);
  if (size >= 2) {
    MPI_Comm inter;
    /* Each half's leader is its highest rank (the split ordered ranks by -rank). */
    const int lastEven = (size - 1) / 2 * 2, lastOdd = size / 2 * 2 - 1;
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? lastEven : lastOdd, 99, &inter);
    int one = 1, remote = 0, remoteSize = 0;
    MPI_Comm_remote_size(inter, &remoteSize);
    MPI_Allreduce(&one, &remote, 1, MPI_INT, MPI_SUM, inter);
    called(ALLREDUCE, 0);
    check(remote == remoteSize, "allreduce on an intercommunicator", 0);
    MPI_Comm_free(&inter);
  }
  MPI_Comm_free(&half);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  testAllreduce(MPI_COMM_WORLD, rank, size, 1, 1);
  testAllreduce(MPI_COMM_WORLD, rank, size, 1, 4099);
  testReductionTypes();
  testReductionFallbacks();
  testReduceAndScatterBlock();
  testAllgatherAlltoall();
  testRooted();
  testCommunicators();
  if (rank == 0)
    for (int fn = 0; fn < FUNCTIONS; ++fn)
      printf("expect: %s: %ld by collplan, %ld to MPI\n", names[fn], byCollplan[fn], toMpi[fn]);
  if (failures) fprintf(stderr, "rank %d: %d wrong results\n", rank, failures);
  MPI_Finalize();
  return failures ? 1 : 0;
}
