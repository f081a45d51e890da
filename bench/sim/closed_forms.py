#!/usr/bin/env python3
"""Simulated compiled allreduce plans against the alpha-beta closed forms on switch:8 and full:8.

Usage: bench/sim/closed_forms.py BUILD_DIR [RANKS]

Runs plan-bench --backend sim --algorithm A for ring, recursive doubling, double binary tree
and mesh two-step on switch:N and full:N (generated topologies: 100 GB/s links, 1 us per hop,
so alpha is 2 us through the switch and 1 us direct; with duplicated writes, which mesh two-step's
allgather uses), 8 B - 256 MiB, and prints per size the
ratio simulated / closed form as a Markdown table. The closed forms (M bytes, B = 100 GB/s):
  ring            2(N-1)(alpha + M/(N B))
  recursive dbl   log2(N) (alpha + M/B)
  mesh two-step   2(alpha + k M/(N B)), k = N-1 on a switch (one link per rank), 1 on full:N
  double binary   the plan's own alpha rounds and beta coefficient (plan-compile --cost):
                  its textbook form depends on the pipeline depth and tree shape
"""
import functools
import json
import math
import os
import re
import subprocess
import sys
import tempfile

LINK_US, BYTES_PER_US = 1.0, 100e9 / 1e6
SIZES = [8, 64, 512, 4096, 32768, 262144, 2 << 20, 16 << 20, 128 << 20, 256 << 20]
ALGORITHMS = ["ring", "recursive-doubling", "double-binary-tree", "mesh-two-step"]


def alpha(net):
    return 2 * LINK_US if net == "switch" else LINK_US


@functools.lru_cache(maxsize=None)
def plan_cost(build, algorithm, n):
    """The plan's alpha rounds and beta coefficient (plan-compile --cost), once per plan."""
    out = subprocess.run([f"{build}/bin/plan-compile", "-c", "allreduce", "-n", str(n), "-a",
                          algorithm, "--cost", "-o", "/dev/null"],
                         check=True, capture_output=True, text=True).stdout
    rounds = float(re.search(r"alpha rounds:\s+([\d.]+)", out).group(1))
    beta = float(re.search(r"beta coefficient:\s+([\d.]+)", out).group(1))
    return rounds, beta


def closed_form(build, algorithm, net, n, m):
    a, b = alpha(net), m / BYTES_PER_US
    if algorithm == "ring":
        return 2 * (n - 1) * (a + b / n)
    if algorithm == "recursive-doubling":
        return math.log2(n) * (a + b)
    if algorithm == "mesh-two-step":
        return 2 * (a + (n - 1 if net == "switch" else 1) * b / n)
    rounds, beta = plan_cost(build, algorithm, n)
    return rounds * a + beta * b


def topology_file(build, net, n, folder):
    """The generated topology net:n (taken from a bundle plan-compile writes for it) with the
    duplication feature, as a file plan-bench reads."""
    out = subprocess.run([f"{build}/bin/plan-compile", "-c", "allreduce", "-a", "ring", "-t",
                          f"{net}:{n}", "--emit", "bundle"],
                         check=True, capture_output=True, text=True).stdout
    topology = json.loads(out)["topology"]
    topology["features"] = ["duplication"]
    path = os.path.join(folder, f"{net}-{n}.json")
    with open(path, "w") as f:
        json.dump(topology, f)
    return path


def simulated(build, algorithm, topology):
    out = subprocess.run([f"{build}/bin/plan-bench", "--backend", "sim", "--topology",
                          topology, "--algorithm", algorithm, "-c", "allreduce", "-b", "8",
                          "-e", "256M", "-f", "2", "--json", "-q"],
                         check=True, capture_output=True, text=True).stdout
    return {row["size"]: row["time_us"] for row in json.loads(out)["rows"]}


def size_name(m):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if m >= scale:
            return f"{m // scale} {unit}"
    return f"{m} B"


def main():
    build = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    columns = [(a, net) for a in ALGORITHMS for net in ("switch", "full")]
    with tempfile.TemporaryDirectory() as folder:
        topologies = {net: topology_file(build, net, n, folder) for net in ("switch", "full")}
        times = {c: simulated(build, c[0], topologies[c[1]]) for c in columns}
    print("| M | " + " | ".join(f"{a} {net}:{n}" for a, net in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for m in SIZES:
        cells = [f"{times[c][m] / closed_form(build, c[0], c[1], n, m):.3f}" for c in columns]
        print(f"| {size_name(m)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
