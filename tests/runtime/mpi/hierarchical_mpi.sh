#!/bin/sh
# The hierarchical path on the mpi backend: 4 processes as two emulated nodes (shared memory
# inside each, MPI over TCP between them) tune a hierarchical allreduce on the job's topology,
# run the bundle, and time it beside MPI_Allreduce in the same launch; composed plans of 4 and 8
# ranks run with checked results; a job of one node refuses the bundle. hierarchical_mpi.sh RUNNER MPIRUN BIN_DIR WORK_DIR (exit 77 where MPI is missing).
set -e
runner=$1 mpirun=$2 bin=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
fail() { cat "$work/out" "$work/err" 2>/dev/null; echo "$1"; exit 1; }
run4() { sh "$runner" "$mpirun" 4 "$@" >"$work/out" 2>"$work/err"; }
export OMPI_MCA_btl=self,tcp

status=0
COLLPLAN_MPI_NODES=2 run4 "$bin/plan-tune" --backend mpi -c allreduce -a hierarchical -e 16K \
  --quick -o "$work/hier.json" || status=$?
[ "$status" = 77 ] && { cat "$work/out"; exit 77; }
[ "$status" = 0 ] || fail "plan-tune exited $status"
grep -q "2 nodes: \[0 1\] \[2 3\]" "$work/out" || fail "the report does not show the two nodes"
"$bin/plan-verify" "$work/hier.json" >/dev/null || fail "the tuned bundle does not prove"

COLLPLAN_MPI_NODES=2 run4 "$bin/plan-bench" --backend mpi --bundle "$work/hier.json" \
  --baseline mpi -b 8 -e 16K || fail "plan-bench of the bundle failed"
rows=$(grep -c " hierarchical$" "$work/out") || true
[ "$rows" = 12 ] || fail "expected 12 sizes run by the hierarchical plan, got $rows"
awk '/ hierarchical$/ && $9 != 0 { bad = 1 } END { exit bad }' "$work/out" ||
  fail "the hierarchical plan gave wrong results"
grep -q "baseline: MPI_Allreduce (the same launch)" "$work/out" || fail "no same-launch baseline"

# Composed plans (the stages stored, each rank's program built when it loads) on two nodes of
# 2 and of 4 ranks, results checked.
for n in 4 8; do
  "$bin/plan-compile" -c allreduce -a hierarchical --ranks-per-node $((n / 2)) --intra ring \
    --inter recursive-doubling --composed -n $n -o "$work/composed$n.json" ||
    fail "plan-compile --composed -n $n failed"
  COLLPLAN_MPI_NODES=2 sh "$runner" "$mpirun" $n "$bin/plan-bench" --backend mpi \
    --plan "$work/composed$n.json" -b 8 -e 32K -f 8 >"$work/out" 2>"$work/err" ||
    fail "plan-bench of the composed plan on $n ranks failed"
  rows=$(grep -c " hierarchical$" "$work/out") || true
  [ "$rows" = 5 ] || fail "expected 5 sizes run by the composed plan on $n ranks, got $rows"
  awk '/ hierarchical$/ && $9 != 0 { bad = 1 } END { exit bad }' "$work/out" ||
    fail "the composed plan gave wrong results on $n ranks"
done

# One node: another topology than the bundle's.
if run4 "$bin/plan-bench" --backend mpi --bundle "$work/hier.json" -b 8 -e 8; then
  fail "a bundle tuned for two nodes ran on one"
fi
grep -q "topology" "$work/err" || fail "the refusal does not name the topology"
echo ok
