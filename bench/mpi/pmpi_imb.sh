#!/bin/sh
# An unchanged MPI benchmark with and without libcollplan-mpi.so: Intel MPI Benchmarks'
# IMB-MPI1 (github.com/intel/mpi-benchmarks, built from source against the same MPI as the
# library), interleaved rounds (without, with, without, ...), each collective and process
# count. Writes every t_avg to a CSV and prints, per (processes, collective, size), the median
# over rounds of with / without and its spread (min-max); -s draws the medians (imb_report.py).
#   pmpi_imb.sh -i IMB-MPI1 -L LIBRARY [-l LAUNCHER] [-n "2 4"] [-r ROUNDS] [-m MSGLOG]
#               [-c "Allreduce ..."] [-T "VAR=VALUE ..."] [-o CSV] [-s SVG]
# LAUNCHER: mpirun (Open MPI, the default) or /usr/bin/mpiexec.mpich, with an IMB-MPI1 and a
# library built against MPICH. MSGLOG: IMB's -msglog (default 3:22, 8 B - 4 MiB). -T adds a
# third mode, "tuned": the MPI library with these variables set (the environment plan-tune
# --backend ompi-tuned|mpich prints to load its rules file); the CSV then holds the three.
set -eu
launcher=mpirun imb= library= counts="2 4" rounds=5 msglog=3:22 csv=pmpi_imb.csv svg= tuned=
collectives="Allreduce Allgather Reduce_scatter_block Alltoall Bcast"
while getopts i:L:l:n:r:m:c:o:s:T: opt; do
  case $opt in
    i) imb=$OPTARG ;; L) library=$OPTARG ;; l) launcher=$OPTARG ;; n) counts=$OPTARG ;;
    r) rounds=$OPTARG ;; m) msglog=$OPTARG ;; c) collectives=$OPTARG ;; o) csv=$OPTARG ;;
    s) svg=$OPTARG ;; T) tuned=$OPTARG ;;
    *) sed -n '2,13p' "$0"; exit 2 ;;
  esac
done
[ -x "$imb" ] || { echo "pmpi_imb.sh: -i IMB-MPI1: not an executable: '$imb'" >&2; exit 2; }
[ -f "$library" ] || { echo "pmpi_imb.sh: -L LIBRARY: no such file: '$library'" >&2; exit 2; }
flags=
case $("$launcher" --version 2>&1) in
  *"Open MPI"* | *OpenRTE*) flags=--oversubscribe; [ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root" ;;
esac
echo "round,processes,collective,bytes,mode,t_avg_us" >"$csv"
for round in $(seq "$rounds"); do
  for n in $counts; do
    for mode in mpi ${tuned:+tuned} collplan; do
      preload=
      [ "$mode" = collplan ] && preload="LD_PRELOAD=$library"
      [ "$mode" = tuned ] && preload=$tuned
      echo "round $round: $n processes, $mode" >&2
      # IMB prints "# Benchmarking NAME" before each table of "bytes reps t_min t_max t_avg".
      # shellcheck disable=SC2086
      "$launcher" $flags -np "$n" env $preload "$imb" -npmin "$n" -msglog "$msglog" \
        -zero_size 0 $collectives |
        awk -v r="$round" -v n="$n" -v m="$mode" '
          /^# Benchmarking/ { name = $3 }
          /^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ *$/ && name != "" {
            printf "%s,%s,%s,%s,%s,%s\n", r, n, name, $1, m, $5 }' >>"$csv"
    done
  done
done
report=$(dirname "$0")/imb_report.py
if [ -n "$svg" ]; then
  python3 "$report" "$csv" --svg "$svg" \
    --title "IMB-MPI1 $(basename "$launcher"): time with libcollplan-mpi.so / time without"
else
  python3 "$report" "$csv"
fi
if [ -n "$tuned" ]; then
  echo; echo "tuned rules against the library's own decision:"; python3 "$report" "$csv" --mode tuned --base mpi
  echo; echo "collplan against the tuned rules:"; python3 "$report" "$csv" --mode collplan --base tuned
fi
