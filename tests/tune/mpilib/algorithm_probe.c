/* Shows which algorithm an MPI library ran for one reduction: every rank records the length of
 * each call of a commutative user-defined sum (the library calls it once per local reduction, on
 * the piece it reduces), and rank 0 prints them, one rank per line:
 *   mpirun -np 4 algorithm_probe allreduce|reduce_scatter COUNT
 *   rank 0: 16 16
 * COUNT is MPI_Allreduce's count, or MPI_Reduce_scatter_block's count per rank. Recursive
 * doubling reduces the whole vector log2(N) times, a ring N-1 blocks of COUNT/N, and so on: the
 * lengths name the algorithm without timing anything. The result is checked too. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxCalls = 256 };
static int callLengths[kMaxCalls];
static int calls;

static void recordingSum(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  if (calls < kMaxCalls) callLengths[calls++] = *len;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

static int usage(int rank) {
  if (rank == 0) fprintf(stderr, "usage: algorithm_probe allreduce|reduce_scatter COUNT\n");
  MPI_Finalize();
  return 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc != 3 || atoi(argv[2]) < 1) return usage(rank);
  const int allreduce = !strcmp(argv[1], "allreduce");
  if (!allreduce && strcmp(argv[1], "reduce_scatter")) return usage(rank);
  const int count = atoi(argv[2]);
  const size_t inputCount = allreduce ? (size_t)count : (size_t)count * (size_t)ranks;
  int *input = malloc(inputCount * sizeof(int)), *output = malloc(inputCount * sizeof(int));
  for (size_t i = 0; i < inputCount; ++i) input[i] = rank + 1;
  MPI_Op op;
  MPI_Op_create(recordingSum, 1, &op);
  if (allreduce) MPI_Allreduce(input, output, count, MPI_INT, op, MPI_COMM_WORLD);
  else MPI_Reduce_scatter_block(input, output, count, MPI_INT, op, MPI_COMM_WORLD);
  const int recorded = calls;  /* the calls below use no user op */
  int wrong = 0;
  for (int i = 0; i < count; ++i) wrong += output[i] != ranks * (ranks + 1) / 2;
  int allWrong = 0;
  MPI_Reduce(&wrong, &allWrong, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  int *counts = malloc((size_t)ranks * sizeof(int)), *lengths = malloc((size_t)ranks * kMaxCalls * sizeof(int));
  MPI_Gather(&recorded, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gather(callLengths, kMaxCalls, MPI_INT, lengths, kMaxCalls, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < ranks; ++r) {
      printf("rank %d:", r);
      for (int i = 0; i < counts[r]; ++i) printf(" %d", lengths[r * kMaxCalls + i]);
      printf("\n");
    }
    if (allWrong) printf("WRONG: %d elements\n", allWrong);
  }
  MPI_Op_free(&op);
  free(input);
  free(output);
  free(counts);
  free(lengths);
  MPI_Finalize();
  return allWrong ? 1 : 0;
}
