#!/usr/bin/env bash
# Runs the issue-3 runtime benchmarks in one go: memcpy roofline, cpu-threads, cpu-shm (buffers
# from collplan_mem_alloc, then heap buffers) and Open MPI's MPI_Allreduce for N=2 and N=4, then
# the dispatch benchmark.
# Usage: bench/runtime/run_allreduce_sweep.sh [build-dir]   (default: build-exec)
set -euo pipefail
build=${1:-build-exec}
bin=$build/bin
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "# $(date -u +%FT%TZ) $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/collplan_bench_allreduce" memcpy
for n in 2 4; do
  "$bin/collplan_bench_allreduce" threads "$n"
  "$bin/collplan-shm-launch" -n "$n" "$bin/collplan_bench_allreduce" shm-registered
  "$bin/collplan-shm-launch" -n "$n" "$bin/collplan_bench_allreduce" shm
  if [[ -x $bin/collplan_bench_mpi_allreduce ]]; then
    mpirun -np "$n" --oversubscribe "$bin/collplan_bench_mpi_allreduce"
  fi
done
"$bin/collplan_bench_dispatch" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
