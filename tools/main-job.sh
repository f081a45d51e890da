#!/usr/bin/env bash
# The README's main job: tune plans for this machine with plan-tune, show why each was chosen,
# then run the tuned bundle through the runtime API (plan-bench --bundle).
# Usage: tools/main-job.sh BUILD_DIR
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$repo/build}
bin=$build/bin
out=$build/main-job
mkdir -p "$out"

echo "== Verifying and costing the example schedules (plans/examples/schedules.mlir)"
"$bin/coll-opt" "$repo/plans/examples/schedules.mlir" --coll-verify --coll-cost -o /dev/null
for template in "$repo"/plans/examples/templates/*.mlir; do
  "$bin/coll-opt" "$template" --coll-instantiate=ranks=8 --coll-verify -o /dev/null
done
echo "== All example schedules and templates (instantiated for 8 ranks) verified: outputs match"
echo "   their collectives, bitwise identical on all ranks."
echo

echo "== Tuning allreduce and allgather (f32, sum) for this machine: local topology, cpu-threads, 2 ranks"
"$bin/plan-tune" --topology local --backend cpu-threads --ranks 2 \
  --collectives allreduce,allgather --dtypes f32 --ops sum \
  --min-bytes 8 --max-bytes 16M --budget 120 \
  --progress -o "$out/local.bundle.json" --report-dir "$out/report"
echo
echo "== Bundle: $out/local.bundle.json; report (CSV, JSON, SVG plots): $out/report/"
echo

for c in allreduce allgather; do
  echo "== Running the tuned $c plans through the runtime (plan-bench --bundle)"
  "$bin/plan-bench" --bundle "$out/local.bundle.json" --collective "$c" --ranks 2 \
    --min-bytes 8 --max-bytes 16M --step-factor 8 --quiet
  echo
done
