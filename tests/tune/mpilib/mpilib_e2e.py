#!/usr/bin/env python3
"""plan-tune --backend ompi-tuned|mpich against the real libraries.

  obeys-ompi / obeys-mpich  a rules file written from a report (--rules-from) is loaded by the
                            library, and the algorithm it names runs at each size: the probe's
                            user-defined op sees the reductions that algorithm makes
  tune-ompi / tune-mpich    a real (quick) tuning: the rules file, the report, and at every
                            measured size the written file runs the algorithm its report chose
  errors                    every bad request fails with a message naming the flag
Exit 77 (skip) when the library, its launcher or a program is missing.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

SKIP = 77


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


class Library:
    def __init__(self, name, mpirun, probe, helper, env):
        self.name, self.mpirun, self.probe, self.helper, self.env = name, mpirun, probe, helper, env


def library(args, name):
    if name == "ompi-tuned":
        lib = Library(name, "mpirun.openmpi", args.probe, os.path.join(args.bin, "collplan-mpi-baseline"),
                      lambda path: {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                                    "OMPI_MCA_coll_tuned_dynamic_rules_filename": path})
    else:
        lib = Library(name, "mpirun.mpich", args.probe_mpich,
                      os.path.join(args.bin, "collplan-mpi-baseline-mpich"),
                      lambda path: {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": path})
    for program in (lib.probe, lib.helper):
        if not program or not os.access(program, os.X_OK):
            print("SKIP: %s is not built (needs %s)" % (program, lib.mpirun))
            sys.exit(SKIP)
    if not shutil.which(lib.mpirun):
        print("SKIP: %s is not installed" % lib.mpirun)
        sys.exit(SKIP)
    return lib


def mpi_env(extra=None):
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1"})
    env.update(extra or {})
    return env


def run(cmd, env=None, expect_ok=True):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=900)
    if expect_ok and p.returncode != 0:
        fail("`%s` exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stdout))
    return p


def fingerprint(lib, ranks, collective, count, rules=None):
    """Per rank, the lengths the user-defined op was called with."""
    out = run([lib.mpirun, "-np", str(ranks), lib.probe, collective, str(count)],
              env=mpi_env(lib.env(rules) if rules else None)).stdout
    lines = [l for l in out.splitlines() if l.startswith("rank ")]
    if len(lines) != ranks or "WRONG" in out:
        fail("the probe printed:\n" + out)
    return [l.split(":", 1)[1].split() for l in lines]


def report(lib_name, collective, ranks, sizes, algorithms, winner):
    """A report as plan-tune writes it: `sizes` are (bytes, count, rule bytes)."""
    return {"library": lib_name, "tables": [{
        "collective": collective, "ranks": ranks, "dtype": "i32", "op": "sum",
        "sizes": [{"bytes": b, "count": c, "rule_bytes": r} for b, c, r in sizes],
        "default_us": [1.0] * len(sizes), "winner": winner,
        "choices": [{"algorithm": a, "segment_bytes": 0, "us": [1.0] * len(sizes)}
                    for a in algorithms]}]}


def rules_from(args, lib, rep, name):
    path = os.path.join(args.work, name + ".json")
    with open(path, "w") as f:
        json.dump(rep, f)
    rules = os.path.join(args.work, name + ".rules")
    run([os.path.join(args.bin, "plan-tune"), "--backend", lib.name, "--rules-from", path, "-o", rules, "-q"])
    return rules


def expect_equal(what, got, want):
    if got != want:
        fail("%s: the library ran %s, the rules name %s" % (what, got, want))
    print("ok: %s: %s" % (what, got[0]))


def obeys_ompi(args):
    lib = library(args, "ompi-tuned")
    # allreduce on 4 ranks: recursive doubling up to 64 B, the ring above.
    rules = rules_from(args, lib, report("ompi-tuned", "allreduce", 4,
                                         [(64, 16, 64), (65536, 16384, 65536)],
                                         ["recursive_doubling", "ring"], [0, 1]), "ompi")
    small = fingerprint(lib, 4, "allreduce", 16, rules)
    expect_equal("allreduce 64 B, recursive_doubling", small, [["16", "16"]] * 4)
    large = fingerprint(lib, 4, "allreduce", 16384, rules)
    expect_equal("allreduce 64 KiB, ring", large, [["4096"] * 3] * 4)
    if fingerprint(lib, 4, "allreduce", 16384) == large and fingerprint(lib, 4, "allreduce", 16) == small:
        fail("without the rules file Open MPI ran the same algorithms: the file changed nothing")


def obeys_mpich(args):
    lib = library(args, "mpich")
    # reduce_scatter_block on 4 ranks (total_msg_size = 4 x count x 4 B): pairwise up to 256 B,
    # recursive halving above.
    rules = rules_from(args, lib, report("mpich", "reduce_scatter", 4,
                                         [(256, 16, 256), (65536, 4096, 65536)],
                                         ["MPIR_Reduce_scatter_block_intra_pairwise",
                                          "MPIR_Reduce_scatter_block_intra_recursive_halving"],
                                         [0, 1]), "mpich")
    small = fingerprint(lib, 4, "reduce_scatter", 16, rules)
    expect_equal("reduce_scatter 256 B, pairwise", small, [["16"] * 3] * 4)
    large = fingerprint(lib, 4, "reduce_scatter", 4096, rules)
    expect_equal("reduce_scatter 64 KiB, recursive_halving", large, [["8192", "4096"]] * 4)
    # A user-defined op never reaches reduce_scatter_allgather (predefined ops only): the
    # written guard sends it to recursive doubling.
    rules = rules_from(args, lib, report("mpich", "allreduce", 4, [(65536, 16384, 65536)],
                                         ["MPIR_Allreduce_intra_reduce_scatter_allgather"], [0]),
                       "mpich-guard")
    expect_equal("allreduce with a user-defined op, guarded", fingerprint(lib, 4, "allreduce", 16384, rules),
                 [["16384", "16384"]] * 4)


def tune(args, name, collectives, probe_collective, ranks):
    """A quick real tuning on `ranks` (comma separated); its rules checked as the docstring says."""
    lib = library(args, name)
    rules = os.path.join(args.work, name + ".rules")
    report_dir = os.path.join(args.work, name + "-report")
    p = run([os.path.join(args.bin, "plan-tune"), "--backend", name, "-c", collectives, "-n", ranks,
             "-d", "i32", "-b", "64", "-e", "64K", "--quick", "--rounds", "1", "-o", rules, "--report-dir", report_dir,
             "--mpirun", lib.mpirun], env=mpi_env())
    print(p.stdout[-3000:])
    rep = json.load(open(os.path.join(report_dir, "report.json")))
    counts = [int(n) for n in ranks.split(",")]
    if rep["library"] != name or len(rep["tables"]) != len(counts) * len(collectives.split(",")):
        fail("report.json has %d tables" % len(rep["tables"]))
    for t in rep["tables"]:
        if len(t["tuned_us"]) != len(t["sizes"]) or min(t["tuned_us"]) <= 0:
            fail("the written rules were not timed at every size: %s" % t["tuned_us"])
    if "load it with" not in p.stdout or not os.path.getsize(rules):
        fail("no rules file written")
    # At every measured size of the probed collective, the written file runs what the report chose.
    for t in rep["tables"]:
        if t["collective"] != probe_collective:
            continue
        for k, size in enumerate(t["sizes"]):
            chosen = t["choices"][t["winner"][k]]
            alone = rules_from(args, lib, report(name, probe_collective, t["ranks"], [
                (size["bytes"], size["count"], size["rule_bytes"])],
                [chosen["algorithm"]], [0]), "%s-%d-%d" % (name, t["ranks"], k))
            want = fingerprint(lib, t["ranks"], probe_collective, size["count"], alone)
            got = fingerprint(lib, t["ranks"], probe_collective, size["count"], rules)
            expect_equal("%s on %d ranks, %d B (%s)" % (probe_collective, t["ranks"], size["bytes"],
                                                       chosen["algorithm"]), got, want)
    # Every collective runs under the written file (MPICH aborts on one its file lacks).
    for collective in ["allreduce", "allgather", "reduce_scatter", "alltoall", "broadcast",
                       "reduce", "gather", "scatter", "barrier"]:
        run([lib.mpirun, "-np", str(max(counts) + 1), lib.helper, "--collective", collective,
             "--dtype", "i32", "--points", "1:2,1000:2"], env=mpi_env(lib.env(rules)))
    print("ok: all nine collectives run on %d ranks under the written file" % (max(counts) + 1))


def errors(args):
    plan_tune = os.path.join(args.bin, "plan-tune")
    cases = [
        (["--backend", "mpich", "-d", "f32,f64"], "one --dtypes and one --ops value"),
        (["--backend", "ompi-tuned", "-c", "gather"], "ompi-tuned has no algorithms to tune for gather"),
        (["--backend", "ompi-tuned", "-n", "1"], "--ranks: collectives need at least 2 ranks, got 1"),
        (["--backend", "mpich", "--rules-format", "ompi-json"], "mpich writes mpich-csel, not 'ompi-json'"),
        (["--backend", "mpich", "--topology", "switch:4"], "--topology, --algorithms and --schedule do not apply"),
        (["--backend", "ompi-tuned", "--mpi-helper", "/nonexistent/helper"], "the MPI helper /nonexistent/helper is missing"),
        (["--backend", "ompi-tuned", "--rules-from", "/nonexistent.json"], "--rules-from: cannot read /nonexistent.json"),
        (["--backend", "sim", "-n", "2,4"], "--ranks: one rank count (several only for an MPI library"),
        (["--backend", "sim", "--rules-from", "x.json"], "--rules-from, --rules-format and --rounds are for an MPI library"),
        (["--backend", "ompi-tuned", "--rounds", "0"], "--rounds must be between 1 and 100, got 0"),
    ]
    other = os.path.join(args.work, "mpich-report.json")
    with open(other, "w") as f:
        json.dump(report("mpich", "allreduce", 2, [(64, 16, 64)], ["MPIR_Allreduce_intra_recursive_doubling"], [0]), f)
    cases.append((["--backend", "ompi-tuned", "--rules-from", other], "measured mpich, not ompi-tuned"))
    broken = os.path.join(args.work, "broken.json")
    with open(broken, "w") as f:
        f.write("{")
    cases.append((["--backend", "mpich", "--rules-from", broken], "is not JSON"))
    for flags, message in cases:
        p = run([plan_tune] + flags, env=mpi_env(), expect_ok=False)
        if p.returncode == 0 or message not in p.stdout:
            fail("plan-tune %s: exit %d, expected the message %r:\n%s" % (" ".join(flags), p.returncode, message, p.stdout))
        print("ok: %s -> %s" % (" ".join(flags), message))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--probe", default="")
    parser.add_argument("--probe-mpich", default="")
    parser.add_argument("--work", required=True)
    parser.add_argument("mode")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.mode == "obeys-ompi":
        obeys_ompi(args)
    elif args.mode == "obeys-mpich":
        obeys_mpich(args)
    elif args.mode == "tune-ompi":
        tune(args, "ompi-tuned", "allreduce,reduce_scatter", "allreduce", "2,4")
    elif args.mode == "tune-mpich":
        # MPICH's ranks busy-poll: more of them than cores (4 or 3 on 2) can take minutes per
        # launch, so its real tuning stays on 2 ranks (obeys-mpich runs 4, a few launches).
        tune(args, "mpich", "allreduce,reduce_scatter", "reduce_scatter", "2")
    elif args.mode == "errors":
        errors(args)
    else:
        fail("unknown mode " + args.mode)


if __name__ == "__main__":
    main()
