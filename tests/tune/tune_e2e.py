#!/usr/bin/env python3
"""End-to-end tests of plan-tune: tune as a user would, then load and run the bundle.

Usage: tune_e2e.py --bin BUILD/bin --work DIR TEST
Exit 0 on success, 77 when the test cannot run here (skipped), 1 on failure. No timing asserts.
"""
import csv
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from e2e_support import SKIP, SVG, Failure, check, run_main  # noqa: E402

U64_MAX = 18446744073709551615


def check_bundle(path, backend, ranks, tables):
    """The bundle's header and that every table's buckets cover 0..UINT64_MAX without gaps."""
    doc = json.load(open(path))
    check(doc["format"] == "collplan-bundle" and doc["version"] == 2, "bundle format/version")
    check(doc["backend"] == backend, f"bundle backend {doc['backend']!r}, expected {backend!r}")
    check(doc["ranks"] == ranks, f"bundle ranks {doc['ranks']}, expected {ranks}")
    check(doc["tool_version"].startswith("plan-tune"), "tool_version")
    check(len(doc["topology_fingerprint"]) > 0, "fingerprint")
    check(doc["topology"]["devices"], "the bundle records its topology")
    check("min_bytes" in doc["tuner"] and "cost_model" in doc["tuner"], "tuner settings")
    got = sorted((t["collective"], t["dtype"], t.get("op")) for t in doc["tables"])
    check(got == sorted(tables), f"bundle tables {got}, expected {sorted(tables)}")
    for t in doc["tables"]:
        buckets = t["buckets"]
        check(buckets[0]["min_bytes"] == 0, "first bucket must start at 0")
        check(buckets[-1]["max_bytes"] == U64_MAX, "last bucket must end at UINT64_MAX")
        for a, b in zip(buckets, buckets[1:]):
            check(b["min_bytes"] == a["max_bytes"] + 1, f"gap or overlap at {a['max_bytes']}")
            check(a["winner"]["algorithm"] != b["winner"]["algorithm"],
                  "neighbouring buckets with one winner were not merged")
        for b in buckets:
            check(b["winner"]["measured_us"] > 0, "winner measured time")
            check(b["plan"]["ranks"] == ranks, "plan rank count")
    schemas = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plans",
                           "schema")
    try:  # optional: python3-jsonschema (with referencing)
        import jsonschema
        from referencing import Registry, Resource
    except ImportError:
        return doc
    plan = json.load(open(os.path.join(schemas, "plan.schema.json")))
    bundle = json.load(open(os.path.join(schemas, "bundle.schema.json")))
    topology = json.load(open(os.path.join(schemas, "topology.schema.json")))
    registry = Registry().with_resources([(plan["$id"], Resource.from_contents(plan)),
                                          (bundle["$id"], Resource.from_contents(bundle)),
                                          (topology["$id"], Resource.from_contents(topology))])
    try:
        jsonschema.Draft202012Validator(bundle, registry=registry).validate(doc)
    except jsonschema.ValidationError as e:
        raise Failure(f"{path} does not match bundle.schema.json: {e.message}")
    return doc


def svg_stem(table):
    """The report's SVG name for a table: <collective>-<dtype>[-<op>]."""
    op = table.get("op")
    return f"{table['collective']}-{table['dtype']}" + (f"-{op}" if op else "")


def check_report(dir, stems):
    """measurements.csv, report.json and one well-formed SVG per table."""
    rows = list(csv.DictReader(open(os.path.join(dir, "measurements.csv"))))
    check(rows, "measurements.csv has no rows")
    check(all(float(r["median_us"]) > 0 for r in rows), "non-positive median in the CSV")
    check(any(r["winner"] == "1" for r in rows), "no winner marked in the CSV")
    report = json.load(open(os.path.join(dir, "report.json")))
    check(report["tables"] and report["tables"][0]["measurements"], "report.json measurements")
    check(all("status" in v for t in report["tables"] for v in t["variants"]), "variant status")
    for stem in stems:
        path = os.path.join(dir, stem + ".svg")
        try:
            root = ET.parse(path).getroot()
        except (ET.ParseError, FileNotFoundError) as e:
            raise Failure(f"{path}: {e}")
        check(root.tag == SVG + "svg", f"{path}: root is not <svg>")
        lines = [p for p in root.iter(SVG + "polyline") if p.get("class") == "variant"]
        winners = [c for c in root.iter(SVG + "circle") if c.get("class") == "winner"]
        check(lines, f"{path}: no variant lines")
        check(len(lines) <= 8, f"{path}: {len(lines)} variant lines; at most 8 are drawn")
        check(winners, f"{path}: no winner markers")
        # Every bucket's plan is drawn (its line among them) and named; each edge is drawn.
        table = next(t for t in report["tables"] if svg_stem(t) == stem)
        buckets = table["buckets"]
        edges = [l for l in root.iter(SVG + "line") if l.get("class") == "bucket-edge"]
        check(len(edges) == max(0, len(buckets) - 1),
              f"{path}: {len(edges)} bucket edges for {len(buckets)} buckets")
        drawn = {l.get("data-variant") for l in lines}
        for b in buckets:
            check(b["winner"]["variant"] in drawn,
                  f"{path}: bucket winner {b['winner']['variant']} is not drawn")
    return report


def run_bundle(env, bundle, ranks, collective, lo, hi):
    """Loads the bundle through the runtime (plan-bench --bundle) and checks every result on
    cpu-threads, whatever backend and topology it was tuned for (--allow-mismatch)."""
    p = env.run("plan-bench", "--bundle", bundle, "-n", str(ranks), "-c", collective, "-b", lo,
                "-e", hi, "--reps", "2", "--json", "--allow-mismatch")
    doc = json.loads(p.stdout)
    check(doc["rows"], "plan-bench printed no rows")
    check(all(r["wrong"] == 0 for r in doc["rows"]), f"wrong results: {doc['rows']}")


# ------------------------------------------------------------------------------------ tests

def test_tune_sim(env):
    bundle, rep = env.path("sim.bundle.json"), env.path("sim-report")
    p = env.run("plan-tune", "--topology", "ring:4", "--backend", "sim", "-c", "allreduce",
                "-b", "8", "-e", "1M", "--quick", "-o", bundle, "--report-dir", rep)
    check("## allreduce f32 sum on 4 ranks" in p.stdout, "no report table")
    check("pruned" in p.stderr, "no pruning summary on stderr")
    check_bundle(bundle, "sim", 4, [("allreduce", "f32", "sum")])
    report = check_report(rep, ["allreduce-f32-sum"])
    # The topology's lower bound beside every winner: simulated, so no winner beats it.
    check("bound%" in p.stdout and "bound%: the topology's lower bound" in p.stdout,
          "the table lacks the bound% column")
    for b in report["tables"][0]["buckets"]:
        check(b["bound_fraction"] is not None and 0 < b["bound_fraction"] <= 1 + 1e-9,
              f"bucket at {b['at_bytes']}: bound fraction {b['bound_fraction']}")
    check(report["tables"][0]["bound"]["latency_us"] > 0, "no latency bound in report.json")
    run_bundle(env, bundle, 4, "allreduce", "8", "1M")


def plugin_accepts(env, path, ranks, nodes):
    """Calls libnccl-tuner-collplan.so's init as NCCL does, with COLLPLAN_NCCL_TUNER_FILE=path:
    the plugin's own reader accepts the file (init returns ncclSuccess)."""
    lib = ctypes.CDLL(os.path.join(env.bin, "..", "lib", "libnccl-tuner-collplan.so"))
    init_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64,
                                 ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p,
                                 ctypes.c_void_p, ctypes.c_void_p)
    finalize_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
    table = (ctypes.c_void_p * 5).in_dll(lib, "ncclTunerPlugin_v6")  # name, init, ..., finalize
    os.environ["COLLPLAN_NCCL_TUNER_FILE"] = path
    try:
        context = ctypes.c_void_p()
        nvl, constants = ctypes.create_string_buffer(64), ctypes.create_string_buffer(4096)
        rc = init_type(table[1])(ctypes.byref(context), 1, ranks, nodes, None,
                                 ctypes.addressof(nvl), ctypes.addressof(constants))
        if rc == 0:
            finalize_type(table[3])(context)
        return rc == 0
    finally:
        del os.environ["COLLPLAN_NCCL_TUNER_FILE"]


def test_tune_emit_nccl_tuner(env):
    """--emit nccl-tuner writes the NCCL tuner plugin's rules: one per bucket whose winner NCCL
    also has (ring, the double binary tree as NCCL's tree), none where it has not (recursive
    doubling: NCCL keeps its choice), and the plugin's reader accepts the file."""
    rules, rep = env.path("nccl-tuner.json"), env.path("nccl-report")
    env.run("plan-tune", "--topology", "nvswitch-h100", "--backend", "sim", "-c",
            "allreduce,allgather", "-a", "ring,double-binary-tree,recursive-doubling", "-b", "8",
            "-e", "64M", "--quick", "-q", "--emit", "nccl-tuner", "-o", rules, "--report-dir", rep)
    doc = json.load(open(rules))
    check(doc["format"] == "collplan-nccl-tuner" and doc["version"] == 1, "format")
    report = json.load(open(os.path.join(rep, "report.json")))
    nccl = {"ring": "ring", "double-binary-tree": "tree"}
    expected = []
    for table in report["tables"]:
        algorithm = {v["label"]: v["algorithm"] for v in table["variants"]}
        for b in table["buckets"]:
            name = nccl.get(algorithm[b["winner"]["variant"]])
            if name:
                expected.append((table["collective"], b["min_bytes"], name))
    got = [(r["collective"], r["min_bytes"], r["algorithm"]) for r in doc["rules"]]
    check(got == expected and got, f"rules {got}, expected {expected}")
    check(all(r["ranks"] == 8 and r["nodes"] == 1 and "protocol" not in r for r in doc["rules"]),
          "ranks, nodes or protocol")
    check(plugin_accepts(env, rules, 8, 1), "the plugin refused the rules file")
    p = env.run("plan-tune", "--ranks", "2", "--emit", "nccl-tuner", expect=1)
    check("--emit nccl-tuner writes to -o FILE" in p.stderr, p.stderr)


def test_tune_fixed_order(env):
    """--fixed-reduction-order keeps only plans that fold in rank order: every plan of the
    bundle is marked, plan-verify --same-order proves them one tree, and the report says why
    the others are not applicable."""
    bundle, rep = env.path("fixed.bundle.json"), env.path("fixed-report")
    env.run("plan-tune", "--topology", "ring:4", "--backend", "sim", "-c", "allreduce", "-b", "8",
            "-e", "1M", "--quick", "-q", "--fixed-reduction-order", "-o", bundle,
            "--report-dir", rep)
    doc = check_bundle(bundle, "sim", 4, [("allreduce", "f32", "sum")])
    check(doc["tuner"]["reduction_order"] == "rank", "the bundle does not record the mode")
    for b in doc["tables"][0]["buckets"]:
        check(b["plan"].get("reduction_order") == "rank",
              f"{b['winner']['algorithm']} is not marked rank-order")
    env.run("plan-verify", "--same-order", bundle)
    report = json.load(open(os.path.join(rep, "report.json")))
    refused = [v for v in report["tables"][0]["not_compiled"]
               if v["status"] == "not-applicable" and "does not reduce in rank order" in v["reason"]]
    check(any(v["label"] == "ring" for v in refused), f"ring is not refused for its order: {refused}")
    kept = [v["label"] for v in report["tables"][0]["variants"]]
    check(kept and not any(k.startswith("ring") for k in kept), f"ring variants kept: {kept}")
    run_bundle(env, bundle, 4, "allreduce", "8", "1M")
    free = env.path("free.bundle.json")
    env.run("plan-tune", "--topology", "ring:4", "--backend", "sim", "-c", "allreduce", "-b", "8",
            "-e", "1M", "--quick", "-q", "-o", free)
    check(json.load(open(free))["tuner"]["reduction_order"] == "free", "free mode not recorded")


def test_tune_sim_deterministic(env):
    """The simulator is deterministic, so two runs give byte-identical bundles."""
    outs = []
    for i in range(2):
        out = env.path(f"det{i}.bundle.json")
        env.run("plan-tune", "--topology", "torus:2x2x2", "--backend", "sim", "-c",
                "allreduce,allgather", "-b", "64", "-e", "4M", "--quick", "-q", "-o", out)
        outs.append(open(out).read())
    check(outs[0] == outs[1], "two sim runs gave different bundles")
    check_bundle(env.path("det0.bundle.json"), "sim", 8,
                 [("allreduce", "f32", "sum"), ("allgather", "f32", None)])


def test_tune_sim_gpu_virtual(env):
    """bench/gpu/run_all.sh prunes plan-tune --backend cuda with bench/gpu/h100-virtual-8.json:
    the file loads, and tuning on it gives a bundle of 8 ranks that runs."""
    topology = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu",
                            "h100-virtual-8.json")
    bundle = env.path("gpu-virtual.bundle.json")
    env.run("plan-tune", "--topology", topology, "--backend", "sim", "-c", "allreduce", "-b", "1K",
            "-e", "64M", "--quick", "-q", "-o", bundle)
    check_bundle(bundle, "sim", 8, [("allreduce", "f32", "sum")])
    run_bundle(env, bundle, 8, "allreduce", "1K", "1M")


def test_tune_threads(env):
    bundle, rep = env.path("threads.bundle.json"), env.path("threads-report")
    p = env.run("plan-tune", "--ranks", "2", "--backend", "cpu-threads", "-c",
                "allreduce,allgather", "-b", "1K", "-e", "8K", "--quick", "-o", bundle,
                "--report-dir", rep)
    check("## allgather f32 on 2 ranks" in p.stdout, "no allgather table")
    check_bundle(bundle, "cpu-threads", 2, [("allreduce", "f32", "sum"), ("allgather", "f32", None)])
    report = check_report(rep, ["allreduce-f32-sum", "allgather-f32"])
    check("bench(us)" in p.stdout, "the table lacks the plan-bench confirmation column")
    for t in report["tables"]:
        check(t["bound"] is None, "a bound on the local topology, whose figures are estimates")
        for b in t["buckets"]:
            c = b["confirmed"]
            check(c and 0 < c["min_us"] <= c["median_us"] <= c["max_us"],
                  f"{t['collective']}: bucket at {b['at_bytes']} was not confirmed: {b}")
    run_bundle(env, bundle, 2, "allreduce", "8", "64K")
    run_bundle(env, bundle, 2, "allgather", "8", "64K")


def test_tune_shm(env):
    bundle = env.path("shm.bundle.json")
    env.run("plan-tune", "--ranks", "2", "--backend", "cpu-shm", "-c", "allreduce", "-b", "256",
            "-e", "1K", "--quick", "-q", "-o", bundle)
    check_bundle(bundle, "cpu-shm", 2, [("allreduce", "f32", "sum")])
    run_bundle(env, bundle, 2, "allreduce", "8", "4K")


def test_tune_budget(env):
    """A budget that runs out leaves a valid partial bundle and report, with at least the size
    being measured when it ran out (the budget is checked between sizes)."""
    bundle, rep = env.path("budget.bundle.json"), env.path("budget-report")
    p = env.run("plan-tune", "--ranks", "2", "-c", "allreduce", "-b", "8", "-e", "64M",
                "--budget", "1", "-o", bundle, "--report-dir", rep)
    doc = json.load(open(bundle))
    check(doc["tuner"]["partial"], "1 s cannot measure 42 variants at 24 sizes: expected partial")
    check("budget" in p.stderr, "no budget note")
    check_bundle(bundle, "cpu-threads", 2, [("allreduce", "f32", "sum")])
    check_report(rep, ["allreduce-f32-sum"])
    run_bundle(env, bundle, 2, "allreduce", "8", "1M")


def test_tune_interrupt(env):
    """Ctrl-C while measuring: exit 130, a valid partial report and bundle."""
    bundle, rep = env.path("int.bundle.json"), env.path("int-report")
    cmd = [os.path.join(env.bin, "plan-tune"), "--ranks", "2", "-c", "allreduce", "-b", "8",
           "-e", "64M", "--progress", "-o", bundle, "--report-dir", rep]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = []
    for line in p.stderr:  # wait until a tenth of the (weighted) measuring is done
        err.append(line)
        if re.match(r"plan-tune: +[1-9]0% \(\d+/\d+ measurements", line):
            p.send_signal(signal.SIGINT)
            break
    rest_out, rest_err = p.communicate(timeout=600)
    err.append(rest_err)
    stderr = "".join(err)
    check(p.returncode == 130, f"exit {p.returncode}, expected 130\n{stderr[-2000:]}")
    check("interrupted" in stderr, "no interrupt note")
    report = json.load(open(os.path.join(rep, "report.json")))
    check(report["interrupted"] and report["partial"], "report.json does not say interrupted")
    if os.path.exists(bundle):
        doc = check_bundle(bundle, "cpu-threads", 2, [("allreduce", "f32", "sum")])
        check(doc["tuner"]["partial"], "partial bundle not marked partial")
        run_bundle(env, bundle, 2, "allreduce", "8", "64K")


def test_tune_cuda_without_a_device(env):
    """Where the cuda backend is built but no GPU is visible, plan-tune stops before its first
    variant, with the CUDA runtime's reason, rather than failing each variant."""
    if "cuda" not in env.run("plan-tune", "--help").stdout:
        return SKIP  # this build has no cuda backend
    p = env.run("plan-tune", "--backend", "cuda", "--topology", "ring:2", "--quick",
                "-a", "ring", "-o", os.path.join(env.work, "cuda.bundle.json"), expect=None)
    if p.returncode == 0:
        return SKIP  # a GPU is here: it tuned, which the GPU tests check
    check(p.returncode == 1, f"plan-tune --backend cuda: exit {p.returncode}\n{p.stderr[-1500:]}")
    check("plan-tune: error: --backend cuda: the cuda backend found no usable device: " in p.stderr,
          f"plan-tune --backend cuda: stderr lacks the reason:\n{p.stderr[-1500:]}")
    check("failed to run" not in p.stderr, "plan-tune --backend cuda tried variants:\n" + p.stderr)


def test_tune_errors(env):
    cases = [
        (["--algorithms", "nosuch"], "unknown algorithm 'nosuch'"),
        (["-c", "allsum"], 'unknown value "allsum"'),
        (["--dtypes", "f33"], 'unknown value "f33"'),
        (["--ops", "avg"], 'unknown value "avg"'),
        (["--topology", "nosuch:3"], "unknown topology"),
        (["--topology", "/nonexistent/topo.json"], "/nonexistent/topo.json"),
        (["--backend", "gpu"], 'unknown backend "gpu"'),
        (["-b", "1M", "-e", "1K"], "is larger than --max-bytes"),
        (["-b", "0"], "--min-bytes must be at least 1"),
        (["-e", "lots"], '"lots" is not a byte size'),
        (["-o", "/nonexistent/dir/b.json"], "cannot write"),
        (["-o", env.work], "is a directory"),
        (["--report-dir", "/proc/nope"], "--report-dir /proc/nope"),
        (["--topology", "ring:4", "--ranks", "3"], "has 4 ranks but --ranks is 3"),
        (["--algorithms", "ring", "-c", "broadcast"], "implements none of the requested"),
        (["--budget", "-1"], "--budget"),
        (["--budget", "nan"], "--budget must be a finite number of seconds >= 0 (0: no limit), "
                              "got nan"),
        (["--budget", "inf"], "got inf"),
        (["--ranks", "0"], "--ranks: collectives need at least 2 ranks, got 0"),
        (["--topology", "local:0"], "'local' needs at least 1 rank after ':', got 0"),
    ]
    for argv, message in cases:
        p = env.run("plan-tune", "--backend", "sim", "--topology", "ring:2", *argv, expect=None) \
            if "--topology" not in argv and "--backend" not in argv \
            else env.run("plan-tune", *argv, expect=None)
        check(p.returncode == 1, f"plan-tune {' '.join(argv)}: exit {p.returncode}, expected 1\n"
                                 f"{p.stderr[-1500:]}")
        check(message in p.stderr, f"plan-tune {' '.join(argv)}: stderr lacks {message!r}:\n"
                                   f"{p.stderr[-1500:]}")
        check("plan-tune: error:" in p.stderr, "errors start with 'plan-tune: error:'")


if __name__ == "__main__":
    sys.exit(run_main(globals(), timeout=600))
