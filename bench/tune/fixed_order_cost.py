#!/usr/bin/env python3
"""What a fixed reduction order costs: plan-tune with and without --fixed-reduction-order.

For each rank count, tunes allreduce both ways (alternating which runs first, ROUNDS times) and
prints, per size, the winner's median time in each mode and the ratio fixed / free (median over
the rounds, with the spread of the ratio across rounds). Simulated backends are exact: one round.

  bench/tune/fixed_order_cost.py BUILD_DIR --backend cpu-shm --ranks 2,4,8 [--rounds 2]
  bench/tune/fixed_order_cost.py BUILD_DIR --backend sim --topology trn2
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile


def tune(build, args, ranks, fixed, out):
    cmd = [os.path.join(build, "bin", "plan-tune"), "--backend", args.backend, "-c", "allreduce",
           "-b", args.min_bytes, "-e", args.max_bytes, "-q", "--report-dir", out]
    if args.topology:
        cmd += ["--topology", args.topology]
    if ranks:
        cmd += ["--ranks", str(ranks)]
    if args.quick:
        cmd += ["--quick"]
    if fixed:
        cmd += ["--fixed-reduction-order"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def winners(report_dir):
    """size -> (winner label, median µs) from measurements.csv."""
    out = {}
    with open(os.path.join(report_dir, "measurements.csv")) as f:
        for row in csv.DictReader(f):
            if row["winner"] == "1":
                out[int(row["size_bytes"])] = (row["variant"], float(row["median_us"]))
    return out


def size_text(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n} B"


def measure(build, args, ranks):
    """Per size: lists over rounds of (free, fixed) winners."""
    rounds = 1 if args.backend == "sim" else args.rounds
    free, fixed = [], []
    for k in range(rounds):
        for mode in ((False, True) if k % 2 == 0 else (True, False)):
            with tempfile.TemporaryDirectory() as d:
                print(f"  ranks {ranks or 'topology'}: round {k + 1}/{rounds}, "
                      f"{'fixed' if mode else 'free'} order...", file=sys.stderr)
                tune(build, args, ranks, mode, d)
                (fixed if mode else free).append(winners(d))
    return free, fixed


def print_table(ranks, free, fixed):
    print(f"\n#### allreduce f32 sum, {args.backend}"
          f"{' ' + args.topology if args.topology else ''}, {ranks or 'all'} ranks\n")
    print("| size | free: winner | free (µs) | fixed: winner | fixed (µs) | fixed / free | spread |")
    print("|---|---|---:|---|---:|---:|---:|")
    for size in sorted(free[0]):
        if not all(size in r for r in free + fixed):
            continue
        ratios = [x[size][1] / f[size][1] for f, x in zip(free, fixed)]
        spread = f"{min(ratios):.2f}–{max(ratios):.2f}" if len(ratios) > 1 else "exact"
        print(f"| {size_text(size)} | {free[0][size][0]} | "
              f"{statistics.median(r[size][1] for r in free):.1f} | {fixed[0][size][0]} | "
              f"{statistics.median(r[size][1] for r in fixed):.1f} | "
              f"{statistics.median(ratios):.2f} | {spread} |")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build")
    p.add_argument("--backend", default="cpu-shm")
    p.add_argument("--topology", default="")
    p.add_argument("--ranks", default="", help="comma-separated rank counts (default: the topology's)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("-b", "--min-bytes", default="8")
    p.add_argument("-e", "--max-bytes", default="16M")
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    for n in [int(x) for x in args.ranks.split(",") if x] or [0]:
        print_table(n, *measure(args.build, args, n))
