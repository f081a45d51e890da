#!/bin/sh
# The tuned cpu-shm bundle against Open MPI's own collective, same ranks, same run.
# Tunes the collectives for N = 2 and 4 (plan-tune --quick), then runs the bundle against
# MPI's collective (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block, MPI_Alltoall,
# MPI_Bcast) with plan-bench --baseline mpi ROUNDS times (each round measures both, back to
# back; at N=4 on 2 cores a launch can land in a slow scheduling mode, and several rounds keep
# one such launch out of the median) and prints every size's median ratio over the rounds, with
# the spread.
# Usage: bench/tune/run_mpi_comparison.sh BUILD_DIR [OUT_DIR] [ROUNDS] [MAX_BYTES] [COLLECTIVES]
#   COLLECTIVES: comma-separated (default allreduce,allgather,reduce_scatter,alltoall,broadcast)
# Environment: RANKS (default "2 4"); BUDGET, plan-tune's seconds per collective (default 60);
# DEFAULTS=1 runs the default rules (no bundle: what a user who never tuned gets) instead of
# tuning.
set -eu
build=${1:?usage: $0 BUILD_DIR [OUT_DIR] [ROUNDS] [MAX_BYTES] [COLLECTIVES]}
out=${2:-bench/tune/mpi-comparison}
rounds=${3:-5}
max=${4:-64M}
collectives=${5:-allreduce,allgather,reduce_scatter,alltoall,broadcast}
here=$(dirname "$0")
count=$(echo "$collectives" | tr ',' '\n' | wc -l)
budget=$(( ${BUDGET:-60} * count ))
mkdir -p "$out"
for n in ${RANKS:-2 4}; do
  if [ "${DEFAULTS:-0}" = 1 ]; then
    bundle=""
  else
    echo "tuning $collectives on $n ranks" >&2
    "$build/bin/plan-tune" -t local --backend cpu-shm --ranks "$n" -c "$collectives" \
      -b 8 -e "$max" --quick --budget "$budget" -q -o "$out/shm$n.bundle.json" \
      --report-dir "$out/shm$n" > "$out/tune-$n.txt"
    bundle="--bundle $out/shm$n.bundle.json"
  fi
  for c in $(echo "$collectives" | tr ',' ' '); do
    r=1
    while [ "$r" -le "$rounds" ]; do
      echo "  $c on $n ranks, round $r of $rounds" >&2
      # shellcheck disable=SC2086 # $bundle is empty or two words
      "$build/bin/plan-bench" $bundle --backend cpu-shm --ranks "$n" \
        -c "$c" -b 8 -e "$max" -f 2 --baseline mpi --json -q > "$out/bench-$c-$n-$r.json"
      r=$((r + 1))
    done
  done
done
python3 "$here/mpi_comparison_table.py" "$out"/bench-*.json
