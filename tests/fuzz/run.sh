#!/usr/bin/env bash
# Runs fuzz targets of a COLLPLAN_FUZZ build from their seed corpus for a fixed time each, prints
# libFuzzer's final figures per target, and fails when any target finds a crash, leak or hang.
#
#   tests/fuzz/run.sh [-b BUILD_DIR] [-t SECONDS] [-o OUT_DIR] [TARGET...]
#
# BUILD_DIR: the fuzz build (default build-fuzz). SECONDS per target (default 25). OUT_DIR
# (default BUILD_DIR/fuzz-runs) receives per target the inputs it found (<target>/corpus, the
# seeds in tests/fuzz/corpus are never written), its log and any reproducer (crash-*, leak-*,
# timeout-*, oom-*). TARGETs default to every fuzz-* binary of the build.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$repo/build-fuzz
seconds=25
out=
while getopts "b:t:o:" flag; do
  case $flag in
    b) build=$OPTARG ;;
    t) seconds=$OPTARG ;;
    o) out=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
out=${out:-$build/fuzz-runs}

targets=("$@")
if ((${#targets[@]} == 0)); then
  for binary in "$build"/bin/fuzz-*; do
    [[ -x $binary ]] && targets+=("$(basename "$binary")")
  done
fi
if ((${#targets[@]} == 0)); then
  echo "fuzz: error: no fuzz-* binaries in $build/bin: build them first" \
       "(cmake --preset fuzz && cmake --build build-fuzz --target fuzzers)" >&2
  exit 2
fi

failed=()
for target in "${targets[@]}"; do
  binary=$build/bin/$target
  seeds=$repo/tests/fuzz/corpus/$target
  [[ -x $binary ]] || { echo "fuzz: error: $binary is missing" >&2; exit 2; }
  [[ -d $seeds ]] || { echo "fuzz: error: no seed corpus $seeds" >&2; exit 2; }
  case $target in
    fuzz-plan | fuzz-bundle) dict=(-dict="$repo/tests/fuzz/plan.dict") ;;
    fuzz-topology) dict=(-dict="$repo/tests/fuzz/topology.dict") ;;
    fuzz-schedule) dict=(-dict="$repo/tests/fuzz/schedule.dict") ;;
    *) dict=() ;;
  esac
  dir=$out/$target
  mkdir -p "$dir/corpus"
  # -timeout: one input running this long is a hang (the largest inputs the loaders accept take
  # seconds under ASan, more on a loaded machine); -rss_limit_mb: beyond this, a memory bomb.
  # The binary reads new inputs from and writes them to $dir/corpus, and reads the seeds.
  status=0
  "$binary" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    "${dict[@]}" -artifact_prefix="$dir/" "$dir/corpus" "$seeds" >"$dir/log" 2>&1 || status=$?
  # libFuzzer's last status line holds the coverage: "#N DONE cov: C ft: F corp: ...".
  figures=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$dir/log" | tail -n 1 |
            sed -E 's/^#([0-9]+)[[:space:]]+DONE[[:space:]]+cov: ([0-9]+) ft: ([0-9]+).*/\1 runs, cov \2, ft \3/' || true)
  if ((status != 0)); then
    failed+=("$target")
    echo "fuzz: $target: FAILED (exit $status); log and reproducer in $dir:" >&2
    grep -E 'ERROR|SUMMARY|collplan fuzz|Test unit written|uncaught|deadly' "$dir/log" | head -n 20 >&2 || true
  else
    echo "fuzz: $target: ${seconds} s, ${figures:-no final figures (see $dir/log)}"
  fi
done

if ((${#failed[@]})); then
  echo "fuzz: error: ${failed[*]} found a bug; reproduce with $build/bin/<target> <reproducer>" >&2
  exit 1
fi
