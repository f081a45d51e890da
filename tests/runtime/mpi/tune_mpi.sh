#!/bin/sh
# plan-tune under mpirun on the mpi backend: one process prints (notes, progress, the report)
# and writes the bundle, which loads and proves.
# tune_mpi.sh RUNNER MPIRUN BIN_DIR WORK_DIR (exit 77 where MPI is missing).
set -e
runner=$1 mpirun=$2 bin=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
status=0
sh "$runner" "$mpirun" 2 "$bin/plan-tune" --backend mpi --ranks 2 -c allreduce,allgather \
  -e 4K --quick --progress -o "$work/mpi.bundle.json" >"$work/out" 2>"$work/err" || status=$?
[ "$status" = 77 ] && { cat "$work/out"; exit 77; }
[ "$status" = 0 ] || { cat "$work/out" "$work/err"; echo "plan-tune exited $status"; exit 1; }
[ "$(grep -c '^## allreduce f32 sum on 2 ranks' "$work/out")" = 1 ] ||
  { cat "$work/out"; echo "the report was not printed exactly once"; exit 1; }
[ "$(grep -c 'plan-tune: wrote' "$work/err")" = 1 ] ||
  { cat "$work/err"; echo "the bundle was not written exactly once"; exit 1; }
[ "$(grep -c 'plan-tune: compiling .* of allreduce' "$work/err")" = 1 ] &&
  [ "$(grep -c 'plan-tune: *100% ([0-9]*/[0-9]* measurements' "$work/err")" = 1 ] ||
  { cat "$work/err"; echo "notes and progress were not printed by one process"; exit 1; }
"$bin/plan-verify" "$work/mpi.bundle.json"
# A budget cannot be shared by processes that each decide alone when it is spent.
if "$bin/plan-tune" --backend mpi --ranks 2 --budget 5 -o "$work/x.json" 2>"$work/budget"; then
  echo "--budget with --backend mpi was accepted"; exit 1
fi
grep -q -- "--budget cannot be used with --backend mpi" "$work/budget" || { cat "$work/budget"; exit 1; }
echo "ok"
