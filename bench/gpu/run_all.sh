#!/usr/bin/env bash
# Every GPU check of collplan in one command: the GPU test suites and the CUDA example, the copy
# roofline, virtual-rank allreduce sweeps and their fraction of the roofline, small-message
# latency, KangaRing vs ring next to coll-cost, plan-tune on the GPU and its bundle, and NCCL side
# by side where there are 2+ GPUs.
#   bench/gpu/run_all.sh [--quick] [--out DIR] [--only STEPS] [BUILD_DIR]
# BUILD_DIR: a build with the cuda backend (default: build). DIR: where everything goes (default:
# bench/gpu/out/<UTC date and time>). STEPS: comma-separated among tests, roofline, allreduce,
# latency, kangaring, tune, bundle, nccl (default: all, in that order). The summary at the end reads
# whatever DIR holds, so steps run one at a time with the same --out add up.
# --quick: a few sizes and repetitions of every step, and of the suites the API tests and two
# algorithms (a smoke run of a few minutes; the whole suites take about 4 minutes on an H200).
# Environment: DTYPES (default "f32 bf16"); ALGORITHMS (the named algorithms of the allreduce
# step); TUNE_BUDGET (plan-tune --budget in seconds; 420, or 60 with --quick); TUNE_TOPOLOGY
# (plan-tune -t; default bench/gpu/h100-virtual-8.json, empty for plan-tune's own default);
# TUNE_MAX (plan-tune's largest size; 1G); NO_CHECK=1 (plan-bench --no-check: no host check
# of the results, which at 1 GiB on 8 ranks takes the host minutes per size; the GPU tests
# check every plan).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
all_steps="tests roofline allreduce latency kangaring tune bundle nccl"
quick=0 out='' only=$all_steps build=build

die() { echo "run_all.sh: $*" >&2; exit 1; }

while (($#)); do
  case $1 in
    --quick) quick=1 ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --only) only=${2:?--only needs steps (e.g. roofline,allreduce)}; only=${only//,/ }; shift ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "run_all.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
for s in $only; do
  [[ " $all_steps " == *" $s "* ]] || die "--only: unknown step \"$s\" (steps: $all_steps)"
done
wants() { [[ " $only " == *" $1 "* ]]; }

# --- What this needs: a build with the cuda backend, and a GPU. ---
[[ -d $build ]] || die "$build: no such build directory (give the build directory, default: build)"
build=$(cd "$build" && pwd)
bin=$build/bin
[[ -x $bin/plan-bench ]] ||
  die "$bin/plan-bench not found: build it (cmake --build $build --target plan-bench)"
bench_help=$("$bin/plan-bench" --help)
backends=$(sed -n 's/.*--backend .*Backend: //p' <<< "$bench_help")
[[ ", $backends, " == *", cuda, "* ]] ||
  die "plan-bench in $build has no cuda backend (its backends: $backends); build where nvcc is" \
      "found (/usr/local/cuda, COLLPLAN_ENABLE_CUDA=ON) with the cuda backend registered"
[[ -x $bin/collplan-copy-roofline ]] ||
  die "$bin/collplan-copy-roofline not found: this build has no CUDA (COLLPLAN_HAVE_CUDA);" \
      "build it with cmake --build $build --target collplan-copy-roofline"
# The CUDA runtime's count (what COLLPLAN_CUDA_DEVICES numbers), so CUDA_VISIBLE_DEVICES counts.
device_list=$("$bin/collplan-copy-roofline" --list 2>&1) ||
  die "no GPU to measure on: ${device_list#collplan-copy-roofline: }"
gpus=$(grep -c '^[0-9]' <<< "$device_list")
have_compiler=0
[[ -x $bin/plan-compile ]] && have_compiler=1

# --- Sizes and repetitions. ---
ranks=8
dtypes=${DTYPES:-f32 bf16}
algorithms=${ALGORITHMS:-ring one-shot two-shot recursive-doubling rabenseifner kangaring \
mesh-two-step mesh-single-step double-binary-tree}
if ((quick)); then
  roofline=(-b 8 -e 16M -f 16 -w 2 --reps 5)
  sweep=(-b 8 -e 16M -f 64) sweep_timing=(-w 1 --reps 3) single_step_max=16M
  latency=(-b 8 -e 4K -f 8 -w 2 --reps 20)
  large=(-b 4M -e 16M -f 4) large_timing=(-w 1 --reps 3) large_from=2M
  tune=(-b 8 -e 1M --quick --budget "${TUNE_BUDGET:-60}")
  bundle=(-b 8 -e 2M -f 8 -w 1 --reps 3)
else
  roofline=(-b 8 -e 1G -f 2)
  # mesh-single-step keeps every peer's whole input: 7 M of scratch per rank, 56 GiB at 1 GiB.
  sweep=(-b 8 -e 1G -f 2) sweep_timing=() single_step_max=256M
  latency=(-b 8 -e 64K -f 2 -w 20 --reps 500)
  large=(-b 64M -e 1G -f 2) large_timing=() large_from=64M
  tune=(-b 8 -e "${TUNE_MAX:-1G}" --budget "${TUNE_BUDGET:-420}")
  bundle=(-b 8 -e 1G -f 2)
fi
# No topology under plans/ or tools/ describes virtual ranks on one GPU, so h100-virtual-8.json is
# the simplest that fits: one device holding the 8 ranks, with the nvswitch-h100 preset's GPU
# figures (3.35 TB/s HBM3; a copy between its ranks at half of it, 0.1 us). Its transfers are
# pulls, as the kernel's are: a receiver reads the message where the sender left it, so a send
# costs no memory traffic of its own. The simulator uses it for its prediction and plan-tune for
# pruning; the plans are compiled without it (as plan-bench --algorithm compiles them on
# --backend cuda), since one 8-rank device would make KangaRing and Mesh a single-device ring.
topology=$here/h100-virtual-8.json
tune_topology=${TUNE_TOPOLOGY-$topology}

out=${out:-$repo/bench/gpu/out/$(date -u +%Y-%m-%d_%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
plans=$out/plans
mkdir -p "$plans"
exec > >(tee -a "$out/log.txt") 2>&1
export COLLPLAN_CUDA_DEVICES=0  # every rank on device 0 (virtual ranks); the nccl step sets its own

failures=()
step_number=0
step() {
  step_number=$((step_number + 1))
  echo "==> $(date -u +%T) [$step_number] $*"
}
# run_to FILE CMD...: CMD's stdout to FILE; a failure is reported at the end, the run goes on.
run_to() {
  local file=$1 rc=0
  shift
  echo "    ${*#"$bin/"} > ${file#"$out/"}"
  "$@" > "$file" || rc=$?
  if ((rc != 0)); then
    [[ -s $file ]] || rm -f "$file"
    echo "    !! exit $rc: ${file#"$out/"}"
    failures+=("${file#"$out/"} (exit $rc)")
  fi
  return 0
}
# compile_plan NAME: plans/NAME.plan.json and its coll-cost figures (plans/NAME.cost.txt), once.
compile_plan() {
  local name=$1 flags=()
  [[ -s $plans/$name.plan.json ]] && return 0
  if ((!have_compiler)); then
    echo "    skipped $name: this build has no plan-compile (COLLPLAN_BUILD_COMPILER=OFF)"
    return 1
  fi
  # KangaRing pairs the ranks of a device: the 8 virtual ranks as 4 pairs.
  [[ $name == kangaring ]] && flags=(--ranks-per-device 2)
  run_to "$plans/$name.cost.txt" "$bin/plan-compile" -c allreduce -n "$ranks" -a "$name" \
    "${flags[@]}" --cost --emit plan -o "$plans/$name.plan.json"
  [[ -s $plans/$name.plan.json ]]
}
check=()
[[ ${NO_CHECK:-0} == 1 ]] && check=(--no-check)
bench() { "$bin/plan-bench" --backend cuda -c allreduce "$@" "${check[@]}" --json; }

{
  echo "date: $(date -u +%FT%TZ)"
  echo "command: $0 $([[ $quick == 1 ]] && echo --quick) --out $out --only ${only// /,} $build"
  echo "commit: $(git -C "$repo" rev-parse HEAD 2> /dev/null || echo unknown)"
  git -C "$repo" status --short 2> /dev/null | sed 's/^/  changed: /'
  echo "devices (CUDA runtime):"
  echo "$device_list"
  command -v nvidia-smi > /dev/null && nvidia-smi
  [[ -x /usr/local/cuda/bin/nvcc ]] && /usr/local/cuda/bin/nvcc --version | tail -1
} >> "$out/env.txt" 2>&1 || true
echo "run_all.sh: $build -> $out (steps: $only$( ((quick)) && echo ', quick'))"
echo "$device_list"

if wants tests; then
  step "the GPU suites and the CUDA example (each test skips, saying why, where it cannot run)"
  mkdir -p "$out/tests"
  for suite in collplan_cuda_device_tests collplan_cuda_compiled_gpu_tests collplan_example_cuda; do
    if [[ ! -x $bin/$suite ]]; then
      echo "    skipped $suite: not in $bin (build it, or pack it with bench/gpu/pack.sh)"
      continue
    fi
    gtest=()
    [[ $suite == *_tests ]] && gtest=(--gtest_output="json:$out/tests/$suite.json")
    ((quick)) && [[ $suite == *_tests ]] &&
      gtest+=("--gtest_filter=CudaApi.*:CudaBench.*:*ring_allreduce:*one_shot_allreduce")
    run_to "$out/tests/$suite.txt" "$bin/$suite" "${gtest[@]}"
    grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test|wrong' "$out/tests/$suite.txt" | sed 's/^/    /' || true
  done
fi

if wants roofline; then
  step "copy roofline: cudaMemcpyAsync and the 16-byte kernel, ${roofline[*]}"
  run_to "$out/roofline.txt" "$bin/collplan-copy-roofline" "${roofline[@]}" \
    --csv "$out/roofline.csv" --json "$out/roofline.json"
fi

if wants allreduce; then
  step "allreduce on $ranks virtual ranks, $dtypes, ${sweep[*]}: built-in plans, then $algorithms"
  mkdir -p "$out/allreduce"
  for dtype in $dtypes; do
    run_to "$out/allreduce/$dtype-default.json" bench -n "$ranks" -d "$dtype" "${sweep[@]}" \
      "${sweep_timing[@]}"
    for name in $algorithms; do
      compile_plan "$name" || continue
      range=("${sweep[@]}")
      [[ $name == mesh-single-step ]] &&
        range=("${sweep[@]:0:2}" -e "$single_step_max" "${sweep[@]:4}")
      run_to "$out/allreduce/$dtype-$name.json" bench --plan "$plans/$name.plan.json" -d "$dtype" \
        "${range[@]}" "${sweep_timing[@]}"
    done
  done
fi

if wants latency; then
  step "small-message latency, f32, ${latency[*]}: built-in, one-shot, two-shot, ring," \
       "recursive doubling"
  mkdir -p "$out/latency"
  run_to "$out/latency/default.json" bench -n "$ranks" -d f32 "${latency[@]}"
  for name in one-shot two-shot ring recursive-doubling; do
    compile_plan "$name" || continue
    run_to "$out/latency/$name.json" bench --plan "$plans/$name.plan.json" -d f32 "${latency[@]}"
  done
fi

if wants kangaring; then
  step "KangaRing vs ring, $dtypes, ${large[*]}, and their predictions (coll-cost, sim)"
  mkdir -p "$out/kangaring"
  for name in ring kangaring; do
    compile_plan "$name" || continue
    for dtype in $dtypes; do
      run_to "$out/kangaring/$name-cuda-$dtype.json" bench --plan "$plans/$name.plan.json" \
        -d "$dtype" "${large[@]}" "${large_timing[@]}"
    done
    run_to "$out/kangaring/$name-sim.json" "$bin/plan-bench" --backend sim --topology "$topology" \
      --plan "$plans/$name.plan.json" "${large[@]}" --json
  done
fi

bundle_file=$out/tune/cuda$ranks.bundle.json
if wants tune; then
  step "plan-tune --backend cuda on $ranks virtual ranks, ${dtypes// /,}, ${tune[*]}"
  mkdir -p "$out/tune"
  run_to "$out/tune/tune.txt" "$bin/plan-tune" --backend cuda -n "$ranks" -c allreduce \
    -d "${dtypes// /,}" ${tune_topology:+-t "$tune_topology"} "${tune[@]}" -o "$bundle_file" \
    --report-dir "$out/tune/report" --progress
fi

if wants bundle; then
  step "the tuned bundle through plan-bench --bundle, ${bundle[*]}"
  if [[ -s $bundle_file ]]; then
    for dtype in $dtypes; do
      run_to "$out/tune/bundle-$dtype.json" bench --bundle "$bundle_file" -d "$dtype" "${bundle[@]}"
    done
  else
    echo "    !! no ${bundle_file#"$out/"}: run the tune step first"
    failures+=("bundle (no ${bundle_file#"$out/"})")
  fi
fi

if wants nccl; then
  step "NCCL side by side (plan-bench --baseline nccl), one rank per GPU"
  if ((gpus < 2)); then
    echo "    skipped: the CUDA runtime sees $gpus GPU; --baseline nccl needs at least 2"
  elif [[ $bench_help != *nccl* ]]; then
    echo "    skipped: this plan-bench has no --baseline nccl"
  else
    mkdir -p "$out/nccl"
    devices=$(seq -s, 0 $((gpus - 1)))
    for dtype in $dtypes; do
      run_to "$out/nccl/allreduce-$dtype.json" env COLLPLAN_CUDA_DEVICES="$devices" \
        "$bin/plan-bench" --backend cuda -n "$gpus" -c allreduce -d "$dtype" --baseline nccl \
        "${sweep[@]}" "${sweep_timing[@]}" --json
    done
  fi
fi

# --- Summary of whatever $out holds. ---
step "summary (also in ${out#"$repo/"}/summary.txt)"
shopt -s nullglob
{
  echo "# collplan GPU measurements in $out"
  if [[ -s $out/roofline.csv ]]; then
    awk -F, 'NR > 1 { if ($5 > peak) { peak = $5; at = $1 } last = $5; size = $1 }
      END { printf "copy roofline: %.1f GB/s at %d B (peak %.1f GB/s at %d B)\n", last, size,
            peak, at }' "$out/roofline.csv"
    runs=("$out"/allreduce/*.json "$out"/tune/bundle-*.json)
    if ((${#runs[@]})); then
      python3 "$here/roofline_fraction.py" --roofline "$out/roofline.csv" \
        --large-from "$large_from" --csv "$out/fraction.csv" "${runs[@]}" > "$out/fraction.txt" &&
        python3 "$here/roofline_fraction.py" --roofline "$out/roofline.csv" \
          --large-from "$large_from" --summary-only "${runs[@]}" || echo "(no fraction table)"
    fi
    if [[ -d $out/kangaring ]]; then
      echo
      python3 "$here/gpu_tables.py" kangaring "$out/kangaring" --plans "$plans" \
        --roofline "$out/roofline.csv" || echo "(no KangaRing table)"
    fi
  else
    echo "(no roofline.csv: run the roofline step for the fractions and the coll-cost prediction)"
  fi
  latency_runs=("$out"/latency/*.json)
  if ((${#latency_runs[@]})); then
    echo
    floor=()
    [[ -s $out/roofline.json ]] && floor=(--floor "$out/roofline.json")
    python3 "$here/gpu_tables.py" latency "${latency_runs[@]}" "${floor[@]}" ||
      echo "(no latency table)"
  fi
  if [[ -s $out/tune/tune.txt ]]; then
    echo
    grep -v '^$' "$out/tune/tune.txt"
  fi
  nccl_runs=("$out"/nccl/*.json)
  if ((${#nccl_runs[@]})); then
    echo
    python3 "$here/gpu_tables.py" baseline "${nccl_runs[@]}" || echo "(no NCCL table)"
  fi
  if ((${#failures[@]})); then
    echo
    echo "FAILED (this run): ${failures[*]}"
  fi
} 2>&1 | tee "$out/summary.txt"
((${#failures[@]} == 0)) || exit 1
