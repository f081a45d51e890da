#!/usr/bin/env python3
"""Regret of plan-tune: the chosen plan at every size against the best variant of an exhaustive run.

Runs plan-tune twice with the same settings: as a user would (cost-model pruning on), and
exhaustively (no pruning, the full parameter grid). For every (collective, size) it reports the
chosen variant's time in the exhaustive run divided by the exhaustive best, and exits 1 when
any regret exceeds the limit (5 % by default).

  bench/tune/regret.py BUILD_DIR [--topology trn2 --backend sim --ranks N ...]
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile


def run_tune(build, args, report_dir, exhaustive):
    cmd = [os.path.join(build, "bin", "plan-tune"), "--topology", args.topology,
           "--backend", args.backend, "--collectives", args.collectives,
           "--min-bytes", args.min_bytes, "--max-bytes", args.max_bytes, "-q",
           "-o", os.path.join(report_dir, "bundle.json"), "--report-dir", report_dir]
    if args.ranks:
        cmd += ["--ranks", str(args.ranks)]
    if exhaustive:
        cmd += ["--prune-factor", "1e300"]
    elif args.quick:
        cmd += ["--quick"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def read(report_dir):
    times, winners = {}, {}
    with open(os.path.join(report_dir, "measurements.csv")) as f:
        for row in csv.DictReader(f):
            key = (row["collective"], int(row["size_bytes"]))
            if row["wrong"] != "0":
                continue
            times[key + (row["variant"],)] = float(row["median_us"])
            if row["winner"] == "1":
                winners[key] = row["variant"]
    return times, winners


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build")
    p.add_argument("--topology", default="trn2")
    p.add_argument("--backend", default="sim")
    p.add_argument("--collectives", default="allreduce,allgather,reduce_scatter")
    p.add_argument("--ranks", type=int, default=0)
    p.add_argument("--min-bytes", default="8")
    p.add_argument("--max-bytes", default="256M")
    p.add_argument("--quick", action="store_true", help="the user run uses --quick")
    p.add_argument("--limit", type=float, default=0.05)
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as tuned_dir, tempfile.TemporaryDirectory() as full_dir:
        run_tune(args.build, args, tuned_dir, exhaustive=False)
        run_tune(args.build, args, full_dir, exhaustive=True)
        _, chosen = read(tuned_dir)
        full, _ = read(full_dir)

    worst = 0.0
    print(f"# regret of plan-tune on {args.topology} ({args.backend}): chosen / exhaustive best")
    print(f"{'collective':15} {'size':>12} {'chosen':28} {'best':28} {'regret':>8}")
    for (coll, size), variant in sorted(chosen.items()):
        candidates = {v: t for (c, s, v), t in full.items() if c == coll and s == size}
        best_variant = min(candidates, key=candidates.get)
        chosen_time = candidates.get(variant)
        if chosen_time is None:
            print(f"{coll:15} {size:>12} {variant:28} (not in the exhaustive run)")
            continue
        regret = chosen_time / candidates[best_variant] - 1.0
        worst = max(worst, regret)
        print(f"{coll:15} {size:>12} {variant:28} {best_variant:28} {regret * 100:7.2f}%")
    print(f"# worst regret {worst * 100:.2f}% (limit {args.limit * 100:.0f}%)")
    return 0 if worst <= args.limit else 1


if __name__ == "__main__":
    sys.exit(main())
