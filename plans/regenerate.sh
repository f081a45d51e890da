#!/usr/bin/env bash
# Regenerates the shipped bundles of the simulator presets (plans/bundles/<preset>/) with
# plan-tune on the sim backend. Usage: plans/regenerate.sh [BUILD_DIR] [PRESET...]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$repo/build}
shift || true
presets=("$@")
((${#presets[@]})) || presets=(trn2 nvswitch-h100 pcie-7 cluster:4)
for preset in "${presets[@]}"; do
  name=${preset/:/-}
  out=$repo/plans/bundles/$name
  mkdir -p "$out"
  echo "== $preset -> plans/bundles/$name" >&2
  "$build/bin/plan-tune" --topology "$preset" --backend sim \
    --collectives allreduce,allgather,reduce_scatter --dtypes f32 --ops sum \
    --min-bytes 8 --max-bytes 256M -q \
    -o "$out/bundle.json" --report-dir "$out/report" > "$out/report.txt"
done
