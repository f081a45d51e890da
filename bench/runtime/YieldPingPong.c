/* Round trip of a flag hand-off between two processes that wait with sched_yield, pinned to two
 * given CPUs: the cost of one context-switch pair when they share a CPU (what four ranks on two
 * cores pay per dependency), or of a cross-core cache-line round trip when they do not.
 * Usage: collplan_bench_yield_pingpong [CPU_A CPU_B [ROUND_TRIPS]]   (default: 0 0 200000) */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    fprintf(stderr, "collplan_bench_yield_pingpong: cannot pin to CPU %d\n", cpu);
    exit(1);
  }
}

int main(int argc, char **argv) {
  const int cpuA = argc > 1 ? atoi(argv[1]) : 0, cpuB = argc > 2 ? atoi(argv[2]) : 0;
  const long trips = argc > 3 ? atol(argv[3]) : 200000;
  /* Two flags on separate cache lines: ping (A writes) and pong (B writes). */
  _Atomic long *flags = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (flags == MAP_FAILED || trips <= 0) return 1;
  _Atomic long *ping = &flags[0], *pong = &flags[16];
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    pin(cpuB);
    for (long i = 1; i <= trips; ++i) {
      while (atomic_load(ping) < i) sched_yield();
      atomic_store(pong, i);
    }
    return 0;
  }
  pin(cpuA);
  const double start = seconds();
  for (long i = 1; i <= trips; ++i) {
    atomic_store(ping, i);
    while (atomic_load(pong) < i) sched_yield();
  }
  const double elapsed = seconds() - start;
  waitpid(child, NULL, 0);
  printf("CPUs %d and %d: %.3f us per round trip (%ld round trips)\n", cpuA, cpuB,
         elapsed / (double)trips * 1e6, trips);
  return 0;
}
