#!/usr/bin/env python3
"""Reports pmpi_imb.sh's CSV: per (processes, collective, size) the median over rounds of the
time of two modes (--mode, default collplan, against --base, default mpi) and of their ratio,
with its spread (a Markdown table), then per (processes, collective) the sizes at or below 1.0
and the geometric mean of the ratios; with --svg, draws the median ratios: per process count one
panel against message size (both axes logarithmic), one line per collective, the 1.0 line marked.
Modes: mpi (the library's own decision), tuned (its rules file), collplan (libcollplan-mpi.so).
Usage: imb_report.py CSV [--mode MODE] [--base MODE] [--svg OUT.svg] [--title TITLE]"""
import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]
PANEL_W, PANEL_H, LEFT, TOP, GAP = 520, 300, 70, 50, 60
RATIO_MIN, RATIO_MAX = 0.1, 10.0


def rounds_by_cell(path):
    """(processes, collective, bytes) -> {(round, mode): t_avg}."""
    times = defaultdict(dict)
    for row in csv.DictReader(open(path)):
        key = (int(row["processes"]), row["collective"], int(row["bytes"]))
        times[key][(row["round"], row["mode"])] = float(row["t_avg_us"])
    return times


MODE, BASE = "collplan", "mpi"  # set from the command line


def ratios_of(by):
    """The per-round ratios MODE / BASE of one cell (rounds with both modes)."""
    return [by[(r, MODE)] / by[(r, BASE)] for r, m in by
            if m == BASE and (r, MODE) in by and by[(r, BASE)] > 0]


def table(times):
    print(f"| processes | collective | bytes | {BASE} (us) | {MODE} (us) | ratio median | spread |")
    print("|---:|---|---:|---:|---:|---:|---|")
    for key in sorted(times):
        by, ratios = times[key], ratios_of(times[key])
        if not ratios:
            continue
        mpi = statistics.median(t for (_, m), t in by.items() if m == BASE)
        ours = statistics.median(t for (_, m), t in by.items() if m == MODE)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {mpi:.2f} | {ours:.2f} | "
              f"{statistics.median(ratios):.2f} | {min(ratios):.2f}-{max(ratios):.2f} |")


def medians(times):
    """(processes, collective) -> [(bytes, median ratio)] sorted by size."""
    lines = defaultdict(list)
    for (n, coll, size), by in times.items():
        ratios = ratios_of(by)
        if ratios:
            lines[(n, coll)].append((size, statistics.median(ratios)))
    return {key: sorted(points) for key, points in lines.items()}


def summary(lines):
    print()
    print("| processes | collective | sizes at or below 1.0 | geomean | largest median |")
    print("|---:|---|---:|---:|---:|")
    for (n, coll), points in sorted(lines.items()):
        ratios = [r for _, r in points]
        geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        worst = max(points, key=lambda p: p[1])
        print(f"| {n} | {coll} | {sum(r <= 1.0 for r in ratios)} of {len(ratios)} | "
              f"{geomean:.2f} | {worst[1]:.2f} at {worst[0]} B |")


def panel(out, x0, n, lines, collectives, sizes):
    lo, hi = math.log2(min(sizes)), math.log2(max(sizes))
    def px(size):
        return x0 + (math.log2(size) - lo) / max(hi - lo, 1) * PANEL_W
    def py(ratio):
        r = min(max(ratio, RATIO_MIN), RATIO_MAX)
        return TOP + (math.log10(RATIO_MAX) - math.log10(r)) / 2 * PANEL_H
    out.append(f'<rect x="{x0}" y="{TOP}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="#888"/>')
    out.append(f'<text x="{x0 + PANEL_W / 2}" y="{TOP - 10}" text-anchor="middle" font-weight="bold">{n} processes</text>')
    for ratio in (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 10.0):
        y = py(ratio)
        style = 'stroke="#000" stroke-width="1.5"' if ratio == 1.0 else 'stroke="#ddd"'
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + PANEL_W}" y2="{y:.1f}" {style}/>')
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{ratio:g}</text>')
    for exp in range(int(lo), int(hi) + 1, 2):
        size = 2 ** exp
        label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB" if size >= 1024 else f"{size} B"
        out.append(f'<text x="{px(size):.1f}" y="{TOP + PANEL_H + 16}" text-anchor="middle">{label}</text>')
    for color, coll in zip(COLORS, collectives):
        points = lines.get((n, coll), [])
        path = " ".join(f"{px(s):.1f},{py(r):.1f}" for s, r in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')


def draw(lines, path, title):
    counts = sorted({n for n, _ in lines})
    collectives = sorted({c for _, c in lines})
    sizes = sorted({s for points in lines.values() for s, _ in points})
    width = LEFT + len(counts) * (PANEL_W + GAP) + 180
    height = TOP + PANEL_H + 70
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{LEFT}" y="20" font-size="14">{title} (below 1: {MODE} is faster)</text>']
    for i, n in enumerate(counts):
        panel(out, LEFT + i * (PANEL_W + GAP), n, lines, collectives, sizes)
    legend_x = LEFT + len(counts) * (PANEL_W + GAP)
    for i, (color, coll) in enumerate(zip(COLORS, collectives)):
        y = TOP + 20 + 22 * i
        out.append(f'<line x1="{legend_x}" y1="{y}" x2="{legend_x + 24}" y2="{y}" stroke="{color}" stroke-width="3"/>')
        out.append(f'<text x="{legend_x + 30}" y="{y + 4}">{coll}</text>')
    out.append(f'<text x="{LEFT + (width - LEFT - 180) / 2}" y="{height - 12}" text-anchor="middle">message size (IMB #bytes)</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--svg")
    parser.add_argument("--mode", default="collplan", choices=["mpi", "tuned", "collplan"])
    parser.add_argument("--base", default="mpi", choices=["mpi", "tuned", "collplan"])
    parser.add_argument("--title")
    args = parser.parse_args()
    global MODE, BASE
    MODE, BASE = args.mode, args.base
    times = rounds_by_cell(args.csv)
    lines = medians(times)
    if not lines:
        sys.exit(f"imb_report.py: {args.csv}: no rows with both modes {MODE} and {BASE}")
    table(times)
    summary(lines)
    if args.svg:
        draw(lines, args.svg, args.title or f"time {MODE} / time {BASE}")


if __name__ == "__main__":
    main()
