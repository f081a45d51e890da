#!/bin/sh
# Runs an unchanged MPI program under libcollplan-mpi.so and checks what the library reports:
#   check_pmpi.sh MODE RUNNER MPIRUN N LIBRARY PROGRAM [BUNDLE]
# MODE program: PROGRAM is pmpi_program (its results checked by itself); every "expect:" line it
#   prints must equal the library's report line for that function.
# MODE disabled: the same with COLLPLAN_MPI_DISABLE=1: every call goes to MPI, none by collplan.
# MODE bad-bundle: COLLPLAN_BUNDLE names a missing file: the library says so, runs the built-in
#   plans, and the results stay right.
# MODE bundle: COLLPLAN_BUNDLE is BUNDLE, tuned for backend mpi on N ranks: the communicators of
#   N ranks run its plans, the split halves (another rank count) the built-in ones.
# MODE hpcc: PROGRAM is Debian's hpcc, on hpccinf.txt.in (N = 500, P x Q = 1 x N): its own checks pass
#   and collplan ran its allreduce, broadcast, all-to-all and barrier calls.
# Skips (77) as run_mpi_test.sh does, or when PROGRAM or LIBRARY is "none".
mode=$1 runner=$2 mpirun=$3 n=$4 library=$5 program=$6 bundle=${7:-}
if [ "$library" = none ] || [ "$program" = none ]; then
  echo "skipped: collplan was configured without MPI, or the program is not available"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_pmpi ($mode, $n ranks): $*" >&2; cat "$work/out" >&2; exit 1; }

run() {  # run ENV... : the program under the library, stdout+stderr in $work/out
  (cd "$work" && sh "$runner" "$mpirun" "$n" env LD_PRELOAD="$library" COLLPLAN_MPI_VERBOSE=1 \
     "$@" "$program") > "$work/out" 2>&1
}

# Every "expect: F: A by collplan, B to MPI" line has the report line "rank 0: F: A by ..., B to
# MPI" (with its reasons after); a function the program never called is not reported.
compare_expectations() {
  count=0
  grep '^expect: ' "$work/out" > "$work/expect" || fail "the program printed no expectations"
  while IFS= read -r line; do
    want=${line#expect: }
    case $want in *": 0 by collplan, 0 to MPI") continue ;; esac
    grep -q "^collplan-mpi: rank 0: $want\( (.*)\)\?\$" "$work/out" ||
      fail "the library's report lacks \"$want\""
    count=$((count + 1))
  done < "$work/expect"
  [ "$count" -ge 9 ] || fail "only $count functions compared"
}

case $mode in
  program)
    run || fail "the program failed"
    compare_expectations
    ;;
  disabled)
    run COLLPLAN_MPI_DISABLE=1 || fail "the program failed"
    grep -q '^collplan-mpi: rank 0: MPI_Allreduce: 0 by collplan, [1-9][0-9]* to MPI ([0-9]* COLLPLAN_MPI_DISABLE)$' \
      "$work/out" || fail "MPI_Allreduce was not reported as disabled"
    if grep '^collplan-mpi: rank 0: ' "$work/out" | grep -v ': 0 by collplan, ' > /dev/null; then
      fail "collplan ran calls although COLLPLAN_MPI_DISABLE=1"
    fi
    ;;
  bad-bundle)
    run COLLPLAN_BUNDLE="$work/missing.bundle.json" || fail "the program failed"
    grep -q "^collplan-mpi: a communicator of $n ranks runs the built-in plans: .*missing.bundle.json" \
      "$work/out" || fail "the missing bundle was not reported"
    compare_expectations
    ;;
  bundle)
    [ -f "$bundle" ] || fail "no bundle at '$bundle' (MpiTune.TwoRanks writes it)"
    run COLLPLAN_BUNDLE="$bundle" || fail "the program failed"
    grep -q "^collplan-mpi: a communicator of $n ranks runs the plans of $bundle\$" "$work/out" ||
      fail "the bundle's plans were not taken"
    grep -q "^collplan-mpi: a communicator of $((n / 2)) ranks runs the built-in plans: " \
      "$work/out" || fail "the split halves did not fall back to the built-in plans"
    compare_expectations
    ;;
  hpcc)
    sed "s/@Q@/$n/" "$(dirname "$0")/hpccinf.txt.in" > "$work/hpccinf.txt"
    run || fail "hpcc failed"
    grep -q '^Success=1$' "$work/hpccoutf.txt" || fail "hpcc did not report Success=1"
    if grep -E 'FAILED|Found [1-9][0-9]* errors|[1-9][0-9]* tests completed and failed' \
         "$work/hpccoutf.txt" > /dev/null; then
      fail "hpcc found wrong results: $(grep -E 'FAILED|errors|failed' "$work/hpccoutf.txt")"
    fi
    for fn in MPI_Allreduce MPI_Bcast MPI_Alltoall MPI_Barrier; do
      grep -q "^collplan-mpi: rank 0: $fn: [1-9][0-9]* by collplan" "$work/out" ||
        fail "collplan ran none of hpcc's $fn calls"
    done
    grep '^collplan-mpi: rank 0: ' "$work/out"
    ;;
  *) echo "check_pmpi.sh: unknown mode $mode" >&2; exit 2 ;;
esac
echo "check_pmpi ($mode, $n ranks): passed"
