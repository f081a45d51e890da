#!/usr/bin/env python3
"""bench/mpi/pmpi_imb.sh's refusals and its report and drawing (bench/mpi/imb_report.py), which
need no benchmark run.

Usage: mpi_scripts_e2e.py --bin BUILD/bin --work DIR TEST
Exit 0 on success, 77 when the test cannot run here (skipped), 1 on failure.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from e2e_support import Failure, check, run_main  # noqa: E402

MPI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "mpi")


def run(env, argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=env.timeout, cwd=env.work)


def expect_refusal(p, message, what):
    check(p.returncode != 0, f"{what}: exit 0, expected a refusal")
    check(message in p.stderr, f"{what}: stderr lacks {message!r}:\n{p.stderr[-1500:]}")


def test_pmpi_imb_refusals(env):
    script = os.path.join(MPI, "pmpi_imb.sh")
    expect_refusal(run(env, ["sh", script, "-L", "/nonexistent.so"]),
                   "-i IMB-MPI1: not an executable: ''", "pmpi_imb.sh without -i")
    expect_refusal(run(env, ["sh", script, "-i", "/bin/true", "-L", "/nonexistent.so"]),
                   "-L LIBRARY: no such file: '/nonexistent.so'", "pmpi_imb.sh with a missing -L")


def test_imb_report(env):
    """Two rounds of two collectives at two sizes: one line per collective per panel, at the
    median ratio (1.5 and 0.5 here), and the 1.0 line."""
    csv = env.path("imb.csv")
    rows = ["round,processes,collective,bytes,mode,t_avg_us"]
    for rnd in (1, 2):
        for size in (8, 1024):
            rows += [f"{rnd},2,Allreduce,{size},mpi,2.0", f"{rnd},2,Allreduce,{size},collplan,3.0",
                     f"{rnd},2,Bcast,{size},mpi,2.0", f"{rnd},2,Bcast,{size},collplan,1.0"]
    with open(csv, "w") as f:
        f.write("\n".join(rows) + "\n")
    svg = env.path("imb.svg")
    p = run(env, [sys.executable, os.path.join(MPI, "imb_report.py"), csv, "--svg", svg])
    check(p.returncode == 0, f"imb_report.py failed:\n{p.stderr}")
    check("| 2 | Allreduce | 8 | 2.00 | 3.00 | 1.50 | 1.50-1.50 |" in p.stdout,
          f"the table row of Allreduce at 8 B:\n{p.stdout}")
    check("| 2 | Bcast | 2 of 2 | 0.50 | 0.50 at 8 B |" in p.stdout,
          f"the summary row of Bcast:\n{p.stdout}")
    text = open(svg).read()
    lines = re.findall(r'<polyline points="([^"]*)"', text)
    check(len(lines) == 2, f"expected 2 polylines (one per collective), got {len(lines)}")
    ys = [{float(pt.split(",")[1]) for pt in line.split()} for line in lines]
    check(all(len(y) == 1 for y in ys), f"each line is flat (one ratio per collective): {ys}")
    check(ys[0] != ys[1], "the two collectives' lines lie apart (ratios 1.5 and 0.5)")
    check('stroke="#000" stroke-width="1.5"' in text, "the 1.0 line is marked")
    for name in ("Allreduce", "Bcast", "2 processes"):
        check(name in text, f"the drawing names {name}")
    # A third mode: --mode and --base pick the pair compared.
    with open(csv, "a") as f:
        f.write("\n".join(f"{rnd},2,Allreduce,{size},tuned,4.0" for rnd in (1, 2)
                          for size in (8, 1024)) + "\n")
    p = run(env, [sys.executable, os.path.join(MPI, "imb_report.py"), csv, "--mode", "collplan",
                  "--base", "tuned"])
    check(p.returncode == 0, f"imb_report.py --base tuned failed:\n{p.stderr}")
    check("| tuned (us) | collplan (us) |" in p.stdout, f"the header names the modes:\n{p.stdout}")
    check("| 2 | Allreduce | 8 | 4.00 | 3.00 | 0.75 | 0.75-0.75 |" in p.stdout,
          f"collplan against tuned at 8 B:\n{p.stdout}")
    p = run(env, [sys.executable, os.path.join(MPI, "imb_report.py"), csv, "--mode", "tuned"])
    check("| 2 | Bcast |" not in p.stdout, f"Bcast has no tuned rows:\n{p.stdout}")
    empty = env.path("empty.csv")
    with open(empty, "w") as f:
        f.write(rows[0] + "\n")
    p = run(env, [sys.executable, os.path.join(MPI, "imb_report.py"), empty])
    check(p.returncode != 0 and "no rows with both modes collplan and mpi" in p.stderr,
          f"an empty CSV is refused: {p.returncode} {p.stderr}")


if __name__ == "__main__":
    sys.exit(run_main(globals(), timeout=60))
