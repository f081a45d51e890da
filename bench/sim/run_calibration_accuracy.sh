#!/bin/sh
# Calibration accuracy (issue 5): calibrate this machine on cpu-threads for N = 2 and 4, then
# compare the simulator's prediction on the calibrated topology with measured allreduce times
# (ring and direct: the runtime's built-in plans; binomial tree and one-shot: plan-compile
# output kept in bench/sim/plans/) over 8 B - 64 MiB, and print the markdown table of ratios.
# Usage: bench/sim/run_calibration_accuracy.sh BUILD_DIR [OUT_DIR]
set -eu
build=${1:?usage: $0 BUILD_DIR [OUT_DIR]}
out=${2:-bench/sim/accuracy}
here=$(dirname "$0")
mkdir -p "$out"
for n in 2 4; do
  "$build/bin/calibrate" --ranks "$n" -b 8 -e 64M -f 2 \
    -o "$out/local-calibrated-$n.json" --report "$out/accuracy-$n.json" \
    --verify-plan "$here/plans/allreduce-binomial-tree-$n.plan.json" \
    --verify-plan "$here/plans/allreduce-one-shot-$n.plan.json" > "$out/calibrate-$n.txt"
done
python3 "$here/accuracy_table.py" "$out/accuracy-2.json" "$out/accuracy-4.json"
