#!/usr/bin/env python3
"""Markdown table of predicted / measured ratios from calibrate --report files (one per N)."""
import json
import statistics
import sys


def main(paths):
    reports = [json.load(open(p)) for p in paths]
    columns, ratios, sizes = [], {}, []
    for report in reports:
        n = report["calibration"]["ranks"]
        for row in report["accuracy"]:
            key = f'{row["plan"]} N={n}'
            if key not in columns:
                columns.append(key)
            ratios[(key, row["bytes"])] = row["ratio"]
            if row["bytes"] not in sizes:
                sizes.append(row["bytes"])
    sizes.sort()
    print("| size | " + " | ".join(columns) + " |")
    print("|---:|" + "---:|" * len(columns))
    for size in sizes:
        cells = [f'{ratios[(c, size)]:.2f}' if (c, size) in ratios else "" for c in columns]
        print(f"| {fmt(size)} | " + " | ".join(cells) + " |")
    errors = {c: [abs(r - 1) for (k, _), r in ratios.items() if k == c] for c in columns}
    print("| median error | " +
          " | ".join(f"{100 * statistics.median(errors[c]):.0f} %" for c in columns) + " |")
    every = [abs(r - 1) for r in ratios.values()]
    print(f"\nmedian error over all {len(every)} points: {100 * statistics.median(every):.1f} %")
    for report in reports:
        c, m = report["calibration"], report["calibration"]["model"]
        print(f'N={c["ranks"]}: latency {m["latency_us"]:.2f} us, memory {m["mem_bandwidth_gbps"]:.2f} GB/s, '
              f'cache {m["cache_bandwidth_gbps"]:.2f} GB/s below {m["cache_bytes"] / 2**20:.1f} MiB footprint, '
              f'reduce {m["reduce_gbps"]:.2f} GB/s; calibration self-check median error '
              f'{100 * c["self_check_median_error"]:.1f} %')


def fmt(size):
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size // scale} {unit}"
    return f"{size} B"


if __name__ == "__main__":
    main(sys.argv[1:])
