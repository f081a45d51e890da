#!/usr/bin/env bash
# The README's main job: what collplan can do end to end on this machine, shown to the user.
# Usage: tools/main-job.sh BUILD_DIR
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$repo/build}
bin=$build/bin

echo "== Verifying and costing the example schedules (plans/examples/schedules.mlir)"
"$bin/coll-opt" "$repo/plans/examples/schedules.mlir" --coll-verify --coll-cost -o /dev/null
echo "== All example schedules verified: outputs match their collectives, bitwise identical on all ranks."
