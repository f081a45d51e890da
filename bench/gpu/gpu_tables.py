#!/usr/bin/env python3
# The latency and KangaRing-vs-ring tables of run_all.sh, from plan-bench --json runs.
"""Tables from plan-bench --json runs.

latency RUN.json... [--floor roofline.json]
    time (us) per size, one column per run (named after its file), the fastest marked with *;
    with --floor, each run's time over the launch floor that collplan-copy-roofline measured
    (one kernel launch with one device-wide barrier), for sizes up to 32 KiB.

kangaring DIR --plans PLANS --roofline roofline.csv
    PLANS holds, for P in ring and kangaring, P.plan.json and P.cost.txt (plan-compile --cost);
    DIR holds P-cuda-<dtype>.json (measured on the GPU) and P-sim.json (plan-bench --backend sim
    on the virtual-rank topology). Per size: the measured times and ring/kangaring, then coll-cost's
    prediction: the memory touches of all ranks (reads + writes) at twice the copy roofline (a
    copied byte is read once and written once; alpha terms left out, large sizes), then the
    simulator's.

baseline RUN.json...
    runs with a baseline (plan-bench --baseline): per size, ours, the baseline's and ours/theirs.
"""
import argparse
import glob
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roofline_fraction import (format_bytes, label_of, load_roofline, load_run,  # noqa: E402
                               plan_cost, roofline_at)


def times(doc):
    """{size: time_us} of a plan-bench document (empty for None)."""
    return {r["size"]: r["time_us"] for r in doc["rows"]} if doc else {}


def latency(paths, floor_path=None):
    runs = [(label_of(p), times(load_run(p))) for p in paths]
    runs = [(name, t) for name, t in runs if t]
    if not runs:
        sys.exit("gpu_tables.py latency: no readable run")
    print(f"# allreduce time (us) per size; * = fastest\n{'size':>10}"
          + "".join(f" {name:>22}" for name, _ in runs))
    for size in sorted(set().union(*(t.keys() for _, t in runs))):
        values = [t.get(size) for _, t in runs]
        best = min(v for v in values if v is not None)
        cells = "".join(f" {'-':>22}" if v is None else f" {v:21.2f}{'*' if v == best else ' '}"
                        for v in values)
        print(f"{format_bytes(size):>10}{cells}")
    if floor_path:
        latency_over_floor(runs, floor_path)


def latency_over_floor(runs, floor_path, up_to=32 << 10):
    """Each run's time over the launch floor (a launch with one device-wide barrier)."""
    with open(floor_path) as f:
        floor = json.load(f).get("launch_floor")
    if not floor:
        print(f"(no launch_floor in {floor_path})")
        return
    barrier = floor["barrier_kernel_us"]
    print(f"# launch floor: empty kernel {floor['empty_kernel_us']:.2f} us, one device-wide "
          f"barrier of {floor['barrier_blocks']} blocks {barrier:.2f} us; time / floor, "
          f"sizes up to {format_bytes(up_to)}:")
    for name, t in runs:
        ratios = [v / barrier for size, v in t.items() if size <= up_to]
        if ratios:
            print(f"{name:>24} {min(ratios):6.2f}x - {max(ratios):6.2f}x")


def predicted_us(cost, size, roofline):
    roof = roofline_at(roofline, size)
    if not cost or not roof:
        return None
    return cost["touches_m"] * size / (2 * roof * 1e3)


def ratio(a, b):
    return f"{a / b:8.2f}" if a and b else f"{'-':>8}"


def cell(v):
    return f"{v:11.1f}" if v else f"{'-':>11}"


def kangaring(directory, plans, roofline_path):
    roofline = load_roofline(roofline_path)
    cost = {p: plan_cost(os.path.join(plans, f"{p}.plan.json")) for p in ("ring", "kangaring")}
    sim = {p: times(load_run(os.path.join(directory, f"{p}-sim.json")))
           for p in ("ring", "kangaring")}
    for p, c in cost.items():
        if c:
            print(f"# coll-cost {p}: {c['alpha_rounds']} alpha rounds, beta {c['beta']:g}, "
                  f"memory touches {c['touches_m']:g} M (all ranks)")
    for ring_path in sorted(glob.glob(os.path.join(directory, "ring-cuda-*.json"))):
        dtype = ring_path[: -len(".json")].rsplit("-", 1)[1]
        measured = {"ring": times(load_run(ring_path)),
                    "kangaring": times(load_run(os.path.join(directory,
                                                             f"kangaring-cuda-{dtype}.json")))}
        print(f"\n# allreduce {dtype}: ring vs kangaring; x = ring time / kangaring time")
        print(f"{'size':>10} {'ring(us)':>11} {'kanga(us)':>11} {'x':>8} | {'cost ring':>11} "
              f"{'cost kanga':>11} {'x':>8} | {'sim ring':>11} {'sim kanga':>11} {'x':>8}")
        for size in sorted(measured["ring"]):
            r, k = measured["ring"].get(size), measured["kangaring"].get(size)
            pr, pk = (predicted_us(cost[p], size, roofline) for p in ("ring", "kangaring"))
            sr, sk = sim["ring"].get(size), sim["kangaring"].get(size)
            print(f"{format_bytes(size):>10} {cell(r)} {cell(k)} {ratio(r, k)} | {cell(pr)} "
                  f"{cell(pk)} {ratio(pr, pk)} | {cell(sr)} {cell(sk)} {ratio(sr, sk)}")


def baseline(paths):
    for path in paths:
        doc = load_run(path)
        if not doc or not doc.get("baseline"):
            continue
        print(f"# {label_of(path)}: {doc['collective']} {doc['dtype']} on {doc['ranks']} ranks, "
              f"baseline {doc['baseline']}; ratio = ours / baseline")
        print(f"{'size':>10} {'ours(us)':>11} {'base(us)':>11} {'ratio':>8}")
        for r in doc["rows"]:
            print(f"{format_bytes(r['size']):>10} {cell(r['time_us'])} "
                  f"{cell(r.get('baseline_us'))} {ratio(r['time_us'], r.get('baseline_us'))}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="table", required=True)
    lat = sub.add_parser("latency", help="time per size, one column per run")
    lat.add_argument("runs", nargs="+")
    lat.add_argument("--floor", help="roofline.json of collplan-copy-roofline (launch_floor)")
    kr = sub.add_parser("kangaring", help="ring vs KangaRing, measured and predicted")
    kr.add_argument("dir")
    kr.add_argument("--plans", help="directory of the plan and cost files (default: DIR)")
    kr.add_argument("--roofline", required=True)
    base = sub.add_parser("baseline", help="ours against the baseline per size")
    base.add_argument("runs", nargs="+")
    args = parser.parse_args()
    if args.table == "latency":
        latency(args.runs, args.floor)
    elif args.table == "kangaring":
        kangaring(args.dir, args.plans or args.dir, args.roofline)
    else:
        baseline(args.runs)


if __name__ == "__main__":
    main()
