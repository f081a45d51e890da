#!/bin/sh
# Issue 6 target: the tuned cpu-shm bundle against Open MPI's own collective, same ranks, same run.
# Tunes allreduce and allgather for N = 2 and 4 (plan-tune --quick), then runs the bundle against
# MPI_Allreduce / MPI_Allgather with plan-bench --baseline mpi ROUNDS times (each round measures
# both, back to back; 5 by default: at N=4 on 2 cores a launch can land in a slow scheduling
# mode, and five rounds keep one such launch out of the median) and prints every size's median
# ratio over the rounds, with the spread.
# Usage: bench/tune/run_mpi_comparison.sh BUILD_DIR [OUT_DIR] [ROUNDS] [MAX_BYTES]
set -eu
build=${1:?usage: $0 BUILD_DIR [OUT_DIR] [ROUNDS] [MAX_BYTES]}
out=${2:-bench/tune/mpi-comparison}
rounds=${3:-5}
max=${4:-64M}
here=$(dirname "$0")
mkdir -p "$out"
for n in 2 4; do
  "$build/bin/plan-tune" -t local --backend cpu-shm --ranks "$n" -c allreduce,allgather \
    -b 8 -e "$max" --quick --budget 150 -o "$out/shm$n.bundle.json" --report-dir "$out/shm$n" \
    > "$out/tune-$n.txt"
  for c in allreduce allgather; do
    r=1
    while [ "$r" -le "$rounds" ]; do
      "$build/bin/plan-bench" --bundle "$out/shm$n.bundle.json" --backend cpu-shm --ranks "$n" \
        -c "$c" -b 8 -e "$max" -f 2 --baseline mpi --json -q > "$out/bench-$c-$n-$r.json"
      r=$((r + 1))
    done
  done
done
python3 "$here/mpi_comparison_table.py" "$out"/bench-*.json
