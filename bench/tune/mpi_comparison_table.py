#!/usr/bin/env python3
"""Markdown table of collplan / MPI time ratios from plan-bench --baseline mpi --json files.

Files are grouped by (collective, ranks); each size shows the median ratio over the files of its
group (rounds), the lowest and highest ratio, and the median times behind the median ratio.
With --before, each cell is instead "median ratio now (median ratio of the earlier run)".
Usage: mpi_comparison_table.py bench-*.json [--before earlier/bench-*.json]
"""
import json
import statistics
import sys
from collections import defaultdict


def size_label(b):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift} {unit}"
    return f"{b} B"


SHORT = {"allreduce": "AR", "allgather": "AG", "reduce_scatter": "RS", "alltoall": "A2A",
         "broadcast": "BC", "reduce": "RD", "gather": "GA", "scatter": "SC"}


def load(paths):
    groups = defaultdict(lambda: defaultdict(list))  # (coll, n) -> size -> [(ratio, ours, mpi)]
    for path in paths:
        with open(path) as f:
            report = json.load(f)
        key = (report["collective"], report["ranks"])
        for row in report["rows"]:
            if "baseline_us" not in row:
                sys.exit(f"{path}: row of size {row.get('size')} has no baseline_us (run with --baseline mpi)")
            groups[key][row["size"]].append((row["time_us"] / row["baseline_us"], row["time_us"],
                                             row["baseline_us"]))
    return groups


def main(args):
    paths, before_paths = args, []
    if "--before" in args:
        at = args.index("--before")
        paths, before_paths = args[:at], args[at + 1:]
    if not paths:
        sys.exit("usage: mpi_comparison_table.py bench-*.json [--before earlier/bench-*.json]")
    groups, before = load(paths), load(before_paths)
    keys = sorted(groups)
    sizes = sorted({s for k in keys for s in groups[k]})
    print("| size | " + " | ".join(f"{SHORT.get(c, c)} N={n}" for c, n in keys) + " |")
    print("|---:|" + "---:|" * len(keys))
    wins = total = 0
    for s in sizes:
        cells = []
        for k in keys:
            runs = groups[k].get(s)
            if not runs:
                cells.append("")
                continue
            ratios = sorted(r for r, _, _ in runs)
            med = statistics.median(ratios)
            ours = statistics.median(o for _, o, _ in runs)
            mpi = statistics.median(m for _, _, m in runs)
            total += 1
            wins += med <= 1.0
            mark = "**" if med > 1.0 else ""
            if before_paths:
                earlier = before[k].get(s)
                then = f"{statistics.median(r for r, _, _ in earlier):.2f}" if earlier else "–"
                cells.append(f"{mark}{med:.2f}{mark} ({then})")
                continue
            cells.append(f"{mark}{med:.2f}{mark} ({ratios[0]:.2f}–{ratios[-1]:.2f}; {ours:.4g} / {mpi:.4g} µs)")
        print(f"| {size_label(s)} | " + " | ".join(cells) + " |")
    rounds = max(len(v) for k in keys for v in groups[k].values())
    cell = ("median ratio (median ratio before)" if before_paths
            else "median ratio (lowest–highest; median collplan / MPI time)")
    print(f"\n{wins} of {total} sizes at median ratio <= 1.0 over {rounds} rounds (cell: {cell}).")


if __name__ == "__main__":
    main(sys.argv[1:])
