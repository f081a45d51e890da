#!/usr/bin/env python3
"""Where one built-in plan overtakes another: interleaved plan-bench rounds, median per size.

Runs `plan-bench --algorithm A` for every algorithm, one after another, ROUNDS times (so a
slow scheduling mode of the machine hits every algorithm alike), and prints per size the
median time of each algorithm over the rounds with its spread (lowest-highest), and the
fastest. What plans/defaults.json's size thresholds are read from.
Usage: algorithm_crossover.py BUILD_DIR --backend cpu-shm --ranks 2 -c allreduce \
           -a recursive-doubling,ring,two-shot [--rounds 5] [-b 8] [-e 4M] [-f 4]
"""
import argparse
import json
import statistics
import subprocess
import sys
from collections import defaultdict


def size_label(b):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift} {unit}"
    return f"{b} B"


def run_round(args, algorithm):
    command = [f"{args.build}/bin/plan-bench", "--backend", args.backend, "--ranks",
               str(args.ranks), "-c", args.collective, "--algorithm", algorithm, "-b", args.b,
               "-e", args.e, "-f", str(args.f), "--json", "-q"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return {row["size"]: row["time_us"] for row in json.loads(done.stdout)["rows"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--backend", default="cpu-shm")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("-c", "--collective", default="allreduce")
    parser.add_argument("-a", "--algorithms", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("-b", default="8")
    parser.add_argument("-e", default="4M")
    parser.add_argument("-f", type=int, default=4)
    args = parser.parse_args()
    algorithms = args.algorithms.split(",")
    times = defaultdict(lambda: defaultdict(list))  # algorithm -> size -> [us]
    for r in range(args.rounds):
        print(f"round {r + 1} of {args.rounds}", file=sys.stderr)
        for a in algorithms:
            for size, us in run_round(args, a).items():
                times[a][size].append(us)
    sizes = sorted(times[algorithms[0]])
    print(f"{args.collective} on {args.ranks} ranks, {args.backend}: median µs over "
          f"{args.rounds} interleaved rounds (lowest-highest)\n")
    print("| size | " + " | ".join(algorithms) + " | fastest |")
    print("|---:|" + "---:|" * len(algorithms) + "---|")
    for size in sizes:
        medians = {a: statistics.median(times[a][size]) for a in algorithms}
        cells = [f"{medians[a]:.2f} ({min(times[a][size]):.2f}-{max(times[a][size]):.2f})"
                 for a in algorithms]
        print(f"| {size_label(size)} | " + " | ".join(cells) +
              f" | {min(medians, key=medians.get)} |")


if __name__ == "__main__":
    main()
