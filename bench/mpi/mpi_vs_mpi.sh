#!/bin/sh
# collplan's mpi backend against MPI's own collectives, in the same launch (plan-bench --backend
# mpi --baseline mpi): each collective, each process count, 8 B - 64 MiB, several rounds. Writes
# every measurement to a CSV and prints, per (processes, collective, size), the median over
# rounds of time / MPI's time and its spread (min-max).
#   mpi_vs_mpi.sh [-l LAUNCHER] [-p PLAN_BENCH] [-n "2 4 8"] [-r ROUNDS] [-c "allreduce ..."]
#                 [-B BUNDLE_PATTERN] [-o CSV]
# LAUNCHER: mpirun (Open MPI, the default) or /usr/bin/mpiexec.mpich with a plan-bench built
# against MPICH. BUNDLE_PATTERN: a bundle per process count and collective, e.g.
# "tuned/%n-%c.json" (%n, %c replaced); sizes without one use the built-in plans.
set -eu
launcher=mpirun planbench=build/bin/plan-bench counts="2 4 8" rounds=3 csv=mpi_vs_mpi.csv
collectives="allreduce allgather reduce_scatter alltoall broadcast" bundles=
while getopts l:p:n:r:c:B:o: opt; do
  case $opt in
    l) launcher=$OPTARG ;; p) planbench=$OPTARG ;; n) counts=$OPTARG ;; r) rounds=$OPTARG ;;
    c) collectives=$OPTARG ;; B) bundles=$OPTARG ;; o) csv=$OPTARG ;;
    *) sed -n '2,10p' "$0"; exit 2 ;;
  esac
done
flags=
case $("$launcher" --version 2>&1) in
  *"Open MPI"* | *OpenRTE*) flags=--oversubscribe; [ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root" ;;
esac
echo "round,processes,collective,bytes,collplan_us,mpi_us,ratio,algorithm" >"$csv"
for round in $(seq "$rounds"); do
  for n in $counts; do
    for c in $collectives; do
      source=
      if [ -n "$bundles" ]; then
        file=$(echo "$bundles" | sed "s/%n/$n/g; s/%c/$c/g")
        [ -f "$file" ] && source="--bundle $file"
      fi
      echo "round $round: $n processes, $c" >&2
      for range in "-b 8 -e 16M -f 8" "-b 64M -e 64M"; do
        # shellcheck disable=SC2086
        "$launcher" $flags -np "$n" "$planbench" -q --backend mpi --baseline mpi -c "$c" \
          $range $source |
          awk -v r="$round" -v n="$n" -v c="$c" '!/^#/ && NF >= 12 {
            printf "%s,%s,%s,%s,%s,%s,%s,%s\n", r, n, c, $1, $6, $10, $11, $12 }' >>"$csv"
      done
    done
  done
done
# Median and spread of the ratio over rounds, per (processes, collective, size).
tail -n +2 "$csv" | sort -t, -k2,2n -k3,3 -k4,4n -k7,7g | awk -F, '
  function report() {
    printf "%-3s %-15s %10s  collplan/MPI %6.2f  (%.2f-%.2f)\n", p, c, b, v[int((n + 1) / 2)], v[1], v[n]
  }
  { key = $2 " " $3 " " $4
    if (key != last && last != "") report()
    if (key != last) { n = 0; last = key; p = $2; c = $3; b = $4 }
    v[++n] = $7 }
  END { if (last != "") report() }'
