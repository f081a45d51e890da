#!/usr/bin/env bash
# synth against the topology's bound on the presets and the irregular machines of
# tests/data/topologies: simulated time at 256 MiB (default trees) and 8 B (latency trees) as a
# percentage of the bound, and the compile time of each plan (trees, schedule, proof).
# Usage: bench/synth/synth_vs_bound.sh [BUILD_DIR]     (prints a markdown table)
set -euo pipefail
build=${1:-build}
bin=$build/bin
here=$(cd "$(dirname "$0")/../.." && pwd)
machines=(dgx1-hybrid-cube-mesh pcie-tree-asymmetric fattree-2node-oversubscribed
          torus-4x4-failed-link random-16 nvswitch-h100 pcie-7 cluster:2 trn2)
kinds=(allgather reduce_scatter allreduce broadcast)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

percent() {  # bound time -> "98.7"
  python3 -c "import sys; print(f'{100 * float(sys.argv[1]) / float(sys.argv[2]):.1f}')" "$1" "$2"
}
simulated() {  # topology plan bytes -> µs
  "$bin/plan-bench" --backend sim --topology "$1" --plan "$2" -b "$3" -e "$3" -q --no-check |
    tail -1 | awk '{print $6}'
}
bound() {  # topology collective bytes -> µs
  "$bin/plan-compile" --bound -c "$2" -t "$1" -b "$3" | tail -1 | awk '{print $3}'
}

echo "| machine | collective | 256 MiB: % of bound | compile (s) | 8 B latency trees: % of bound |"
echo "|---|---|---:|---:|---:|"
for m in "${machines[@]}"; do
  case $m in *:*|nvswitch-h100|pcie-7|trn2) topo=$m ;; *) topo=$here/tests/data/topologies/$m.json ;; esac
  for c in "${kinds[@]}"; do
    echo "synth: $m $c" >&2
    start=$(date +%s.%N)
    "$bin/plan-compile" -c "$c" -a synth -t "$topo" -o "$tmp/large.json"
    seconds=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" \
              "$start" "$(date +%s.%N)")
    "$bin/plan-compile" -c "$c" -a synth --latency true -t "$topo" -o "$tmp/small.json"
    large=$(percent "$(bound "$topo" "$c" 256M)" "$(simulated "$topo" "$tmp/large.json" 256M)")
    small=$(percent "$(bound "$topo" "$c" 8)" "$(simulated "$topo" "$tmp/small.json" 8)")
    echo "| $m | $c | $large | $seconds | $small |"
  done
done
