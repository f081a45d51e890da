"""Starts N Python processes as one cpu-shm job: python3 -m collplan.launch -n N script.py [args].

Each process runs `script.py args` with the job described in its environment, so
collplan.communicator_from_env() gives it its rank. This is collplan-shm-launch (at
$COLLPLAN_SHM_LAUNCH, else with the tools of the build or prefix this package belongs to, else on
PATH) running this interpreter: it
names the job, removes its segments even after a crash, stops the ranks when one fails, and
exits with the first failing rank's status.
"""

import argparse
import os
import shutil
import sys
from pathlib import Path

from collplan._layout import BIN_DIR


def find_launcher():
    """The collplan-shm-launch program, or None."""
    candidates = [
        os.environ.get("COLLPLAN_SHM_LAUNCH"),
        str(Path(__file__).resolve().parent / BIN_DIR / "collplan-shm-launch"),
        shutil.which("collplan-shm-launch"),
    ]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m collplan.launch",
        description="Run a Python script as N ranks of a collplan cpu-shm job.")
    parser.add_argument("-n", "--ranks", type=int, required=True, help="number of processes")
    parser.add_argument("--job", help="job name (default: a random one)")
    parser.add_argument("script", help="the Python script each rank runs")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the script")
    options = parser.parse_args(argv)
    if options.ranks < 1:
        parser.error(f"--ranks must be at least 1, got {options.ranks}")
    launcher = find_launcher()
    if launcher is None:
        parser.error("collplan-shm-launch not found: put it on PATH or set COLLPLAN_SHM_LAUNCH")
    command = [launcher, "-n", str(options.ranks)]
    if options.job:
        command += ["--job", options.job]
    command += ["--", sys.executable, options.script, *options.args]
    os.execv(launcher, command)


if __name__ == "__main__":
    main()
