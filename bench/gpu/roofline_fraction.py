#!/usr/bin/env python3
# Virtual-rank collective bandwidth as a fraction of the GPU's copy roofline, per size and run.
"""Joins collplan-copy-roofline's CSV with plan-bench --json runs (virtual ranks on one GPU).

For each run and each size >= --large-from:
  bus/roof = ranks x busbw / roofline GB/s at that size. nccl-tests' busbw is what one rank moves
             to and from its peers per second; virtual ranks share one GPU's memory, so the sum
             over ranks is set against the rate at which that GPU copies bytes (bytes counted
             once). A plan that only copied, with perfect copies, would reach 1.
  mem/roof = coll-cost's memory touches (reads + writes of the schedule's dataflow, via
             plan-compile --cost) per second over twice the roofline (a copied byte is one read
             and one write). The kernel moves more than that where the lowering stages values
             (one-shot, KangaRing, two-shot) and less for recursive doubling: bench/gpu/README.md
             gives both counts. Only for runs of a plan file X.plan.json with its coll-cost
             output X.cost.txt beside it (run_all.sh writes both).
Reductions read more than they write, so bus/roof stays below 1 even for a perfect kernel: 0.80
for the 8-rank ring, KangaRing, two-shot and mesh two-step (35 M moved per call).

Usage: roofline_fraction.py --roofline roofline.csv [--large-from 64M] [--target 0.8]
                            [--csv out.csv] [--summary-only] RUN.json...
"""
import argparse
import csv
import json
import os
import re
import statistics
import sys


def parse_bytes(text):
    """'64M' -> 67108864 (K, M, G are powers of 1024, as plan-bench takes them)."""
    m = re.fullmatch(r"(\d+)\s*([KMG]?)(i?B)?", text.strip(), re.IGNORECASE)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r} is not a byte size (e.g. 64M)")
    return int(m.group(1)) * 1024 ** " KMG".index((m.group(2) or " ").upper())


def format_bytes(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n} B"


def load_roofline(path):
    """{size: GB/s} from collplan-copy-roofline --csv."""
    with open(path, newline="") as f:
        rows = {int(r["size"]): float(r["gbps"]) for r in csv.DictReader(f)}
    if not rows:
        sys.exit(f"roofline_fraction.py: {path}: no rows")
    return rows


def roofline_at(roofline, size):
    """The roofline at `size`, else at the largest measured size below it (None if none)."""
    below = [s for s in roofline if s <= size]
    return roofline[max(below)] if below else None


def load_run(path):
    """A plan-bench --json document, or None (with a note) when the file is not one."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"note: {path}: skipped ({e})", file=sys.stderr)
        return None
    if doc.get("tool") != "plan-bench" or not doc.get("rows"):
        print(f"note: {path}: skipped (not a plan-bench --json run with rows)", file=sys.stderr)
        return None
    return doc


def plan_cost(plan_path):
    """coll-cost of a plan file X.plan.json from X.cost.txt beside it: alpha rounds, beta and the
    memory touches of all ranks in units of M; None when either file is missing."""
    if not plan_path.endswith(".plan.json"):
        return None
    cost_path = plan_path[: -len(".plan.json")] + ".cost.txt"
    try:
        with open(plan_path) as f:
            units = json.load(f)["units"]
        with open(cost_path) as f:
            text = f.read()
    except (OSError, ValueError, KeyError):
        return None
    touches = re.search(r"memory touches:\s+(\d+) units in all", text)
    alpha = re.search(r"alpha rounds:\s+(\d+)", text)
    beta = re.search(r"beta coefficient:\s+([0-9.]+)", text)
    if not (touches and alpha and beta):
        return None
    return {"touches_m": int(touches.group(1)) / units, "alpha_rounds": int(alpha.group(1)),
            "beta": float(beta.group(1))}


def label_of(path):
    return os.path.basename(path)[: -len(".json")] if path.endswith(".json") else path


def fractions(path, doc, roofline, large_from):
    """One dict per row at or above large_from."""
    cost = plan_cost(doc.get("plans", ""))
    out = []
    for row in doc["rows"]:
        size, time_us = row["size"], row["time_us"]
        roof = roofline_at(roofline, size)
        if size < large_from or not roof or time_us <= 0:
            continue
        mem = None
        if cost:
            mem = cost["touches_m"] * size / time_us / 1e3 / (2 * roof)
        out.append({"run": label_of(path), "dtype": doc["dtype"], "ranks": doc["ranks"],
                    "size": size, "time_us": time_us, "busbw_gbps": row["busbw_gbps"],
                    "roofline_gbps": roof, "bus_fraction": doc["ranks"] * row["busbw_gbps"] / roof,
                    "mem_fraction": mem, "wrong": row.get("wrong"),
                    "algorithm": row.get("algorithm", "")})
    return out


def print_rows(rows):
    print(f"{'run':<28} {'size':>10} {'time(us)':>11} {'busbw':>9} {'roof':>9} "
          f"{'bus/roof':>9} {'mem/roof':>9}  algorithm")
    for r in rows:
        mem = f"{r['mem_fraction']:9.3f}" if r["mem_fraction"] is not None else f"{'-':>9}"
        wrong = f"  #wrong {r['wrong']}" if r["wrong"] else ""
        print(f"{r['run']:<28} {format_bytes(r['size']):>10} {r['time_us']:11.1f} "
              f"{r['busbw_gbps']:9.1f} {r['roofline_gbps']:9.1f} {r['bus_fraction']:9.3f} "
              f"{mem}  {r['algorithm']}{wrong}")


def print_summary(rows, target):
    """Per run: the median and the lowest bus/roof over the large sizes, against the target."""
    print(f"\n{'run':<28} {'sizes':>5} {'median bus/roof':>16} {'min':>7} {'median mem/roof':>16}"
          f"  target {target:g}")
    runs = {}
    for r in rows:
        runs.setdefault(r["run"], []).append(r)
    for run, rs in runs.items():
        bus = [r["bus_fraction"] for r in rs]
        mems = [r["mem_fraction"] for r in rs if r["mem_fraction"] is not None]
        mem = f"{statistics.median(mems):16.3f}" if mems else f"{'-':>16}"
        verdict = "meets" if statistics.median(bus) >= target else "below"
        print(f"{run:<28} {len(rs):5d} {statistics.median(bus):16.3f} {min(bus):7.3f} {mem}"
              f"  {verdict}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--roofline", required=True, help="collplan-copy-roofline --csv output")
    parser.add_argument("--large-from", type=parse_bytes, default=parse_bytes("64M"),
                        help="smallest size counted as large (default 64M)")
    parser.add_argument("--target", type=float, default=0.8,
                        help="bus/roof a run should reach (default 0.8)")
    parser.add_argument("--csv", help="also write every row to this CSV file")
    parser.add_argument("--summary-only", action="store_true",
                        help="print only the per-run summary, not every size")
    parser.add_argument("runs", nargs="+", help="plan-bench --json outputs")
    args = parser.parse_args()

    roofline = load_roofline(args.roofline)
    rows = []
    for path in args.runs:
        doc = load_run(path)
        if doc:
            rows += fractions(path, doc, roofline, args.large_from)
    if not rows:
        sys.exit(f"roofline_fraction.py: no run has sizes >= {format_bytes(args.large_from)}")
    print(f"# fraction of the copy roofline ({args.roofline}), sizes >= "
          f"{format_bytes(args.large_from)}")
    if not args.summary_only:
        print_rows(rows)
    print_summary(rows, args.target)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
