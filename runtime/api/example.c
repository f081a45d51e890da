/* example.c: allreduce over 4 cpu-threads ranks with the C API (built and run by the tests). */
#include "collplan.h"

#include <stdio.h>

#define COUNT 1000

/* Each rank contributes rank+1 everywhere; every rank must end with 1+2+3+4 = 10. */
static collplan_status_t work(collplan_comm_t comm, void *user) {
  (void)user;
  int rank = 0;
  collplan_status_t s = collplan_comm_rank(comm, &rank);
  if (s != COLLPLAN_SUCCESS) return s;
  float send[COUNT], recv[COUNT];
  for (int i = 0; i < COUNT; ++i) send[i] = (float)(rank + 1);
  s = collplan_allreduce(comm, send, recv, COUNT, COLLPLAN_F32, COLLPLAN_SUM);
  if (s != COLLPLAN_SUCCESS) return s;
  for (int i = 0; i < COUNT; ++i)
    if (recv[i] != 10.0f) return COLLPLAN_ERROR_INTERNAL;
  /* In place: pass the same buffer. */
  s = collplan_allreduce(comm, recv, recv, COUNT, COLLPLAN_F32, COLLPLAN_MAX);
  if (s != COLLPLAN_SUCCESS) return s;
  return collplan_barrier(comm);
}

int main(void) {
  collplan_config_t config;
  collplan_config_init(&config);
  config.backend = "cpu-threads";
  config.ranks = 4;
  /* config.bundle_file = "plans/my-machine.bundle.json";  tuned plans, when you have them */

  collplan_world_t world = NULL;
  collplan_status_t s = collplan_world_create(&config, &world);
  if (s == COLLPLAN_SUCCESS) s = collplan_run_threads(world, work, NULL);
  if (s != COLLPLAN_SUCCESS) {
    fprintf(stderr, "collplan: %s\n%s\n", collplan_error_string(s), collplan_last_error());
    collplan_world_destroy(world);
    return 1;
  }
  collplan_world_destroy(world);
  printf("allreduce on 4 ranks: ok\n");
  return 0;
}
