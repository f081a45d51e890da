#!/usr/bin/env python3
"""The GPU scripts' refusals (bench/gpu/pack.sh, bench/gpu/run_all.sh), which need no GPU.

Usage: gpu_scripts_e2e.py --bin BUILD/bin --work DIR TEST
Exit 0 on success, 77 when the test cannot run here (skipped), 1 on failure.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from e2e_support import SKIP, Failure, check, run_main  # noqa: E402

GPU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu")


def script(env, name, *argv):
    return subprocess.run(["bash", os.path.join(GPU, name), *argv], capture_output=True,
                          text=True, timeout=env.timeout, cwd=env.work)


def expect_refusal(p, message, what):
    check(p.returncode != 0, f"{what}: exit 0, expected a refusal")
    check(message in p.stderr, f"{what}: stderr lacks {message!r}:\n{p.stderr[-1500:]}")


def test_pack_refusals(env):
    expect_refusal(script(env, "pack.sh", "/nonexistent/build"),
                   "/nonexistent/build/bin: no such directory", "pack.sh of a missing build")
    empty = env.path("empty-build")
    os.makedirs(os.path.join(empty, "bin"), exist_ok=True)
    expect_refusal(script(env, "pack.sh", empty), "collplan_cuda_device_tests not found: build it",
                   "pack.sh of a build without the GPU programs")
    check(not os.path.exists(env.path("gpu-pack.tar.xz")), "a refused pack leaves no archive")


def test_run_all_refusals(env):
    build = os.path.dirname(os.path.abspath(env.bin))
    expect_refusal(script(env, "run_all.sh", "--only", "roofline,bogus", build),
                   '--only: unknown step "bogus" (steps: tests roofline', "run_all.sh --only bogus")
    expect_refusal(script(env, "run_all.sh", "/nonexistent/build"),
                   "/nonexistent/build: no such build directory", "run_all.sh of a missing build")
    expect_refusal(script(env, "run_all.sh", "--frobnicate"), "unknown option --frobnicate",
                   "run_all.sh --frobnicate")
    roofline = os.path.join(env.bin, "collplan-copy-roofline")
    if not os.path.exists(roofline):
        return SKIP  # a build without CUDA stops earlier, saying so
    listing = subprocess.run([roofline, "--list"], capture_output=True, text=True,
                             timeout=env.timeout)
    if listing.returncode == 0:
        return SKIP  # a GPU is visible: run_all.sh would measure it
    expect_refusal(script(env, "run_all.sh", "--quick", "--out", env.path("out"), build),
                   "no GPU to measure on", "run_all.sh without a GPU")


if __name__ == "__main__":
    sys.exit(run_main(globals(), timeout=120))
