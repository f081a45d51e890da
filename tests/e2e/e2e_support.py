"""Shared harness of the end-to-end tool tests (tools_e2e.py, tests/tune/tune_e2e.py).

Each test is a function test_NAME(env) that runs the tools as a user would; it raises Failure,
returns SKIP (77: cannot run here) or returns normally (pass).
"""
import argparse
import os
import subprocess
import sys

SVG = "{http://www.w3.org/2000/svg}"
SKIP = 77


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


class Env:
    """The build's bin directory, a work directory, and optionally the test data directory."""

    def __init__(self, args, timeout):
        self.bin, self.work = args.bin, args.work
        self.data = getattr(args, "data", None)
        self.timeout = timeout
        os.makedirs(self.work, exist_ok=True)

    def run(self, tool, *argv, expect=0):
        cmd = [os.path.join(self.bin, tool), *argv]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout)
        if expect is not None and p.returncode != expect:
            raise Failure(f"{' '.join(cmd)}: exit {p.returncode}, expected {expect}\n"
                          f"stdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-3000:]}")
        return p

    def path(self, name):
        return os.path.join(self.work, name)

    def has_compiler(self):
        """True when the build has the compiler (plan-compile is built next to the tools)."""
        return os.path.exists(os.path.join(self.bin, "plan-compile"))


def run_main(namespace, timeout, with_data=False):
    """Parses --bin, --work (and --data) and the test name, runs the test_* function of
    `namespace` (a module's globals()) and returns the exit code: 0 pass, 1 fail, 77 skipped."""
    tests = {name[5:]: fn for name, fn in namespace.items() if name.startswith("test_")}
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    if with_data:
        ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("test", choices=sorted(tests))
    args = ap.parse_args()
    try:
        result = tests[args.test](Env(args, timeout))
    except Failure as e:
        print(f"FAIL {args.test}: {e}", file=sys.stderr)
        return 1
    if result == SKIP:
        return SKIP
    print(f"PASS {args.test}")
    return 0
