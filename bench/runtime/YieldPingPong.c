/* Round trip of a flag hand-off between two processes pinned to two given CPUs, waiting with
 * sched_yield or with a futex sleep (the writer wakes the sleeper): the cost of one
 * context-switch pair when they share a CPU (what four ranks on two cores pay per dependency),
 * or of a cross-core round trip when they do not; the futex mode prices a wait that leaves
 * the run queue.
 * Usage: collplan_bench_yield_pingpong [CPU_A CPU_B [ROUND_TRIPS [yield|futex]]]
 *        (default: 0 0 200000 yield) */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
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

static int useFutex;

/* Waits until *flag >= value: yields, or sleeps on the futex until the writer wakes it. */
static void waitFor(_Atomic int *flag, int value) {
  int seen;
  while ((seen = atomic_load(flag)) < value) {
    if (useFutex)
      syscall(SYS_futex, (int *)flag, FUTEX_WAIT, seen, NULL, NULL, 0);
    else
      sched_yield();
  }
}

static void publish(_Atomic int *flag, int value) {
  atomic_store(flag, value);
  if (useFutex) syscall(SYS_futex, (int *)flag, FUTEX_WAKE, 1, NULL, NULL, 0);
}

int main(int argc, char **argv) {
  const int cpuA = argc > 1 ? atoi(argv[1]) : 0, cpuB = argc > 2 ? atoi(argv[2]) : 0;
  const int trips = argc > 3 ? atoi(argv[3]) : 200000;
  useFutex = argc > 4 && strcmp(argv[4], "futex") == 0;
  if (argc > 4 && !useFutex && strcmp(argv[4], "yield") != 0) {
    fprintf(stderr, "collplan_bench_yield_pingpong: the wait is yield or futex, not %s\n", argv[4]);
    return 2;
  }
  /* Two flags on separate cache lines: ping (A writes) and pong (B writes). */
  _Atomic int *flags = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (flags == MAP_FAILED || trips <= 0) return 1;
  _Atomic int *ping = &flags[0], *pong = &flags[32];
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    pin(cpuB);
    for (int i = 1; i <= trips; ++i) {
      waitFor(ping, i);
      publish(pong, i);
    }
    return 0;
  }
  pin(cpuA);
  const double start = seconds();
  for (int i = 1; i <= trips; ++i) {
    publish(ping, i);
    waitFor(pong, i);
  }
  const double elapsed = seconds() - start;
  waitpid(child, NULL, 0);
  printf("CPUs %d and %d, %s: %.3f us per round trip (%d round trips)\n", cpuA, cpuB,
         useFutex ? "futex" : "yield", elapsed / (double)trips * 1e6, trips);
  return 0;
}
