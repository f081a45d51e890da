// The message sizes and repetition counts shared by the collplan and MPI allreduce sweeps.
#pragma once

#include <stddef.h>

/* 8 B to 64 MiB in factors of 4 (plus 64 MiB itself). */
static const size_t kSweepBytes[] = {8,       32,       128,      512,      2048,
                                     8192,    32768,    131072,   524288,   2097152,
                                     8388608, 33554432, 67108864};
static const int kSweepSizes = sizeof(kSweepBytes) / sizeof(kSweepBytes[0]);

/* Timed repetitions per size (after warm-up); the median is reported. */
static inline int sweepReps(size_t bytes) {
  return bytes <= 131072 ? 200 : bytes <= 2097152 ? 50 : bytes <= 8388608 ? 15 : 9;
}
