/* example_cuda.c: an allreduce of device buffers over 4 virtual ranks of one GPU, enqueued on a
 * CUDA stream, then captured in a CUDA graph and replayed. Exits 77 where no GPU is visible. */
#include "collplan_cuda.h"

#include <stdio.h>
#include <stdlib.h>

#define RANKS 4
#define COUNT 1000

static int check(collplan_status_t status, const char *what) {
  if (status == COLLPLAN_SUCCESS) return 0;
  fprintf(stderr, "%s: %s\n", what, collplan_last_error());
  return 1;
}

/* Enqueues one allreduce on every rank: the ranks of one device launch together. */
static collplan_status_t allreduce(collplan_comm_t *comms, float **send, float **recv,
                                   cudaStream_t stream) {
  collplan_status_t status = collplan_group_start();
  for (int r = 0; r < RANKS && status == COLLPLAN_SUCCESS; ++r) {
    collplan_call_t call = {COLLPLAN_ALLREDUCE, send[r], COUNT * sizeof(float), recv[r],
                            COUNT * sizeof(float), COUNT, COLLPLAN_F32, COLLPLAN_SUM, 0};
    status = collplan_cuda_call(comms[r], &call, stream);
  }
  collplan_status_t end = collplan_group_end();
  return status != COLLPLAN_SUCCESS ? status : end;
}

int main(void) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device here: nothing to run\n");
    return 77;
  }
  collplan_config_t config;
  collplan_config_init(&config);
  config.backend = "cuda";
  config.ranks = RANKS;
  collplan_world_t world = NULL;
  if (check(collplan_world_create(&config, &world), "collplan_world_create")) return 1;

  collplan_comm_t comms[RANKS];
  float *send[RANKS], *recv[RANKS];
  float host[COUNT];
  for (int r = 0; r < RANKS; ++r) {
    if (check(collplan_comm_create(world, r, &comms[r]), "collplan_comm_create") ||
        check(collplan_mem_alloc(comms[r], sizeof host, (void **)&send[r]), "collplan_mem_alloc") ||
        check(collplan_mem_alloc(comms[r], sizeof host, (void **)&recv[r]), "collplan_mem_alloc"))
      return 1;
    for (int i = 0; i < COUNT; ++i) host[i] = (float)(r + 1);
    cudaMemcpy(send[r], host, sizeof host, cudaMemcpyHostToDevice);
  }

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  /* Once directly, then three replays of a captured graph; the sums do not change. */
  if (check(allreduce(comms, send, recv, stream), "allreduce")) return 1;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  if (check(allreduce(comms, send, recv, stream), "allreduce (captured)")) return 1;
  cudaStreamEndCapture(stream, &graph);
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
    fprintf(stderr, "cudaGraphInstantiate failed\n");
    return 1;
  }
  for (int replay = 0; replay < 3; ++replay) cudaGraphLaunch(exec, stream);
  cudaStreamSynchronize(stream);

  int wrong = 0;
  for (int r = 0; r < RANKS; ++r) {
    cudaMemcpy(host, recv[r], sizeof host, cudaMemcpyDeviceToHost);
    for (int i = 0; i < COUNT; ++i) wrong += host[i] != 10.0f; /* 1 + 2 + 3 + 4 */
  }
  printf("allreduce of %d floats on %d virtual ranks: %d wrong, last algorithm %s\n", COUNT,
         RANKS, wrong, collplan_comm_last_algorithm(comms[0]));

  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  for (int r = 0; r < RANKS; ++r) {
    collplan_mem_free(comms[r], send[r]);
    collplan_mem_free(comms[r], recv[r]);
    collplan_comm_destroy(comms[r]);
  }
  collplan_world_destroy(world);
  return wrong == 0 ? 0 : 1;
}
