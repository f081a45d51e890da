#!/usr/bin/env python3
"""End-to-end tests of plan-view and plan-bench: each runs the tool as a user would.

Usage: tools_e2e.py --bin BUILD/bin --data tests/e2e/data --work DIR TEST
Exit 0 on success, 77 when the test cannot run here (skipped), 1 on failure.
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

from e2e_support import SKIP, SVG, Failure, check, run_main


def parse_svg(path):
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as e:
        raise Failure(f"{path} is not well-formed XML: {e}")


def svg_counts(root):
    """The ranks drawn (each may have several lane rows, one per channel), op boxes, arrows."""
    lanes = [g for g in root.iter(SVG + "g") if g.get("class") == "rank"]
    rows = sorted({g.get("data-rank") for g in lanes})
    ops = [g for g in root.iter(SVG + "g") if g.get("class") == "op"]
    arrows = [p for p in root.iter(SVG + "path") if p.get("class") == "transfer"]
    return rows, ops, arrows


def svg_lanes(root):
    return [g for g in root.iter(SVG + "g") if g.get("class") == "rank"]


# ---------------------------------------------------------------------------------- plan-view

def test_view_svg_plan_file(env):
    out = env.path("allreduce_2rank.svg")
    env.run("plan-view", os.path.join(env.data, "allreduce_2rank.plan.json"), "-o", out)
    root = parse_svg(out)
    check(root.tag == SVG + "svg", "root element is not <svg>")
    rows, ops, arrows = svg_counts(root)
    check(len(rows) == 2, f"expected 2 rank rows, got {len(rows)}")
    check(len(ops) == 6, f"expected 6 op boxes, got {len(ops)}")
    check(len(arrows) == 4, f"expected 4 transfer arrows, got {len(arrows)}")
    text = open(out, encoding="utf-8").read()
    for word in ("step 0", "step 2", "reduction", "duplication", "recv_reduce_send"):
        check(word in text, f"SVG lacks {word!r}")


def test_view_svg_default_ring(env):
    out = env.path("ring4.svg")
    # 64 KiB: the default rules' ring (recursive doubling below 32 KiB on three ranks or more,
    # two-shot from 256 KiB).
    env.run("plan-view", "--algorithm", "default", "--collective", "allreduce", "--ranks", "4",
            "--bytes", "64K", "-o", out)
    rows, ops, arrows = svg_counts(parse_svg(out))
    check(len(rows) == 4, f"expected 4 rank rows, got {len(rows)}")
    # Ring allreduce: 2(N-1) rounds of N transfers, 2(N-1)+1 ops per rank.
    check(len(arrows) == 24, f"expected 24 transfer arrows, got {len(arrows)}")
    check(len(ops) == 28, f"expected 28 op boxes, got {len(ops)}")


def test_view_html(env):
    out = env.path("allreduce_2rank.html")
    env.run("plan-view", "--plan", os.path.join(env.data, "allreduce_2rank.plan.json"), "--html",
            "-o", out)
    html = open(out, encoding="utf-8").read()
    check(html.startswith("<!DOCTYPE html>"), "not an HTML document")
    m = re.search(r'id="frame-labels">(.*?)</script>', html, re.S)
    check(m, "no frame-labels block")
    check(json.loads(m.group(1)) == ["step 0", "step 1", "step 2"], f"steps: {m.group(1)}")
    check("<script>" in html and "function show" in html, "no inline stepping script")
    check(not re.search(r'(src|href)="(https?:)?//', html), "the page loads external assets")
    svg = html[html.index("<svg"):html.index("</svg>") + 6]
    rows, _, arrows = svg_counts(ET.fromstring(svg))
    check(len(rows) == 2 and len(arrows) == 4, "embedded SVG: wrong rows/arrows")


def test_view_sim(env):
    out = env.path("ring4-sim.svg")
    env.run("plan-view", "--algorithm", "default", "--ranks", "4", "--sim", "ring:4", "--bytes",
            "1M", "-o", out)
    root = parse_svg(out)
    rows, _, arrows = svg_counts(root)
    check(len(rows) == 4 and len(arrows) == 24, f"rows {len(rows)}, arrows {len(arrows)}")
    check("simulated time on ring:4" in open(out, encoding="utf-8").read(), "no sim subtitle")


def test_view_bundle(env):
    out = env.path("bundle.svg")
    env.run("plan-view", "--bundle", os.path.join(env.data, "allreduce_2rank.bundle.json"),
            "--collective", "allreduce", "--dtype", "f32", "--bytes", "64K", "-o", out)
    rows, _, _ = svg_counts(parse_svg(out))
    check(len(rows) == 2, "bundle plan: expected 2 rows")


def test_view_caps(env):
    out = env.path("ring64.svg")
    env.run("plan-view", "--algorithm", "default", "--ranks", "64", "--bytes", "64K",
            "--max-ranks", "8", "--max-steps", "10", "-o", out)
    root = parse_svg(out)
    rows, ops, _ = svg_counts(root)
    check(len(rows) == 8, f"expected 8 rows under --max-ranks 8, got {len(rows)}")
    check(len(ops) == 80, f"expected 8 x 10 boxes, got {len(ops)}")
    text = open(out, encoding="utf-8").read()
    check("Showing ranks 0–7 of 64, steps 0–9 of 127" in text, "no truncation note")


def test_view_errors(env):
    d = env.data
    cases = [
        (["/nonexistent/x.plan.json"], "/nonexistent/x.plan.json"),
        ([os.path.join(d, "bad_deadlock.plan.json")], "deadlock"),
        ([os.path.join(d, "allreduce_2rank.bundle.json")], "this is a bundle: use --bundle"),
        ([os.path.join(d, "allreduce_2rank.plan.json"), "-o", "/nonexistent/dir/x.svg"],
         "/nonexistent/dir/x.svg: cannot write: No such file or directory"),
        ([os.path.join(d, "allreduce_2rank.plan.json"), "-o", "/dev/full"],
         "/dev/full: cannot write: No space left on device"),
        ([os.path.join(d, "allreduce_2rank.plan.json"), "--sim", "bogus:3"], "unknown topology"),
        ([os.path.join(d, "allreduce_2rank.plan.json"), "--sim", "ring:4"], "has 4 ranks"),
        (["--algorithm", "default"], "needs --ranks"),
        ([], "give exactly one of"),
        (["--algorithm", "default", "--ranks", "4", "--collective", "allsum"], "--collective"),
        (["--algorithm", "default", "--ranks", "4", "--bytes", "12Q", "--sim", "ring:4"],
         "--bytes"),
    ]
    for argv, needle in cases:
        p = env.run("plan-view", *argv, expect=None)
        check(p.returncode != 0, f"plan-view {argv}: exit 0 on bad input")
        check(needle in p.stderr, f"plan-view {argv}: stderr lacks {needle!r}:\n{p.stderr}")
        check("plan-view: " in p.stderr, f"plan-view {argv}: message not prefixed")


def test_view_named_algorithm(env):
    """--algorithm NAME draws a compiled algorithm (with --param); without the compiler, says so."""
    if not env.has_compiler():
        p = env.run("plan-view", "--algorithm", "ring", "--ranks", "2", expect=1)
        check("named algorithms need plan-compile" in p.stderr, p.stderr)
        return None
    out = env.path("ring-bidir.svg")
    env.run("plan-view", "--algorithm", "ring", "--param", "channels=2", "--param",
            "bidirectional=true", "--ranks", "4", "-o", out)
    root = parse_svg(out)
    rows, _, arrows = svg_counts(root)
    check(len(rows) == 4 and arrows, f"rows {len(rows)}, arrows {len(arrows)}")
    # Two rings, each both ways: four channels, drawn as four lanes per rank.
    check(len(svg_lanes(root)) == 16, f"expected 16 channel lanes, got {len(svg_lanes(root))}")
    text = open(out, encoding="utf-8").read()
    check("ring bidirectional=true channels=2" in text, "the title does not name the algorithm")
    check("channel 3" in text, "the lanes are not labelled with their channel")
    out = env.path("rabenseifner.html")
    env.run("plan-view", "--algorithm", "rabenseifner", "-n", "4", "--html", "-o", out)
    html = open(out, encoding="utf-8").read()
    check(html.startswith("<!DOCTYPE html>") and "rabenseifner" in html, "HTML page")
    out = env.path("kangaring-trn2.svg")
    env.run("plan-view", "--algorithm", "kangaring", "--topology", "trn2", "-c", "allgather",
            "-o", out)
    check("kangaring" in open(out, encoding="utf-8").read(), "topology-aware drawing")


def listed_algorithms(env):
    """plan-compile --list as {name: (kinds, --param arguments of its `example:` line)}: one
    line per algorithm (name, kinds, summary), its details indented below it."""
    algorithms = {}
    name = None
    for line in env.run("plan-compile", "--list").stdout.splitlines():
        if not line.startswith(" "):
            name, kinds = line.split("\t")[:2]
            algorithms[name] = (kinds.split(","), [])
        elif line.strip().startswith("example: "):
            for assignment in line.strip()[len("example: "):].split(", "):
                algorithms[name][1].extend(["--param", assignment])
    return algorithms


def test_view_every_algorithm(env):
    """Every algorithm plan-compile --list names draws, for the first collective it implements,
    with the parameters --list gives it where its defaults need a topology."""
    if not env.has_compiler():
        print("no compiler in this build: skipped")
        return SKIP
    listing = listed_algorithms(env)
    check(len(listing) > 10, f"plan-compile --list: {listing}")
    for name, (kinds, example) in listing.items():
        out = env.path(name + ".svg")
        env.run("plan-view", "--algorithm", name, "-c", kinds[0], "-n", "4", *example, "-o", out)
        text = open(out, encoding="utf-8").read()
        check(f"· {name}" in text, f"{name}: the drawing does not name the algorithm")
        check(len(svg_counts(parse_svg(out))[0]) == 4, f"{name}: expected 4 rank rows")


# Bad --algorithm / --param input, the same for both tools: (argv, message with the compiler,
# message in the runtime-only build).
NO_COMPILER = "named algorithms need plan-compile"
PARAM_ERRORS = [
    (["-n", "2", "--param", "channels=2"],
     "--param channels=2: parameters need --algorithm NAME", None),
    (["--algorithm", "default", "-n", "2", "--param", "channels=2"],
     "parameters need --algorithm NAME", None),
    (["--algorithm", "ring", "-n", "2", "--param", "colour=red"],
     "--param colour=red: unknown key \"colour\" (valid keys: slices, bidirectional, channels, "
     "dims, fanout, inter, intra, latency, order, pipeline, ranks-per-device, ranks-per-node, "
     "trees)",
     NO_COMPILER),
    (["--algorithm", "ring", "-n", "2", "--param", "channels"],
     "--param channels: expected KEY=VALUE", NO_COMPILER),
    (["--algorithm", "ring", "-n", "2", "--param", "channels=two"],
     "--param channels=two: \"two\" is not an integer", NO_COMPILER),
    (["--algorithm", "ring", "-n", "2", "--param", "slices=100000"],
     "--param slices=100000: \"100000\" is above the maximum of 1024", NO_COMPILER),
    (["--algorithm", "ring", "-n", "4", "--param", "order=0,1,,3"],
     "--param order=0,1,,3: \"0,1,,3\" is not a comma-separated list of integers", NO_COMPILER),
    (["--algorithm", "ring", "-n", "2", "--param", "bidirectional=maybe"],
     "\"maybe\" is not true or false", NO_COMPILER),
    (["--algorithm", "ring", "-n", "2", "--param", "channels=2", "--param", "channels=3"],
     "--param channels=3: channels is given twice", NO_COMPILER),
    (["--algorithm", "ring", "-n", "2", "--param", "fanout=4"],
     "--param fanout=4: algorithm 'ring' does not take fanout (it takes: slices, channels, "
     "bidirectional, order)", NO_COMPILER),
    (["--algorithm", "dissemination", "-c", "barrier", "-n", "2", "--param", "slices=2"],
     "algorithm 'dissemination' does not take slices (it takes: none)", NO_COMPILER),
    (["--algorithm", "ring", "-c", "broadcast", "-n", "2"],
     "--algorithm ring does not apply to broadcast (it implements: allgather, reduce_scatter, "
     "allreduce)", NO_COMPILER),
    (["--algorithm", "zigzag", "-n", "2"],
     "--algorithm zigzag: unknown algorithm 'zigzag' (known: flat, hierarchical,", NO_COMPILER),
    (["--algorithm", "ring", "-n", "4", "--param", "channels=0"],
     "--param channels=0: \"0\" is below the minimum of 1", NO_COMPILER),
    (["--algorithm", "ring", "-n", "4", "--param", "order=0,1,1,3"],
     "ring order [0, 1, 1, 3] is not a permutation of 0..3", NO_COMPILER),
    (["--algorithm", "hierarchical", "-n", "4"],
     "but no topology is given: set ranks-per-node or topology", NO_COMPILER),
]


def check_param_errors(env, tool, extra_cases):
    for argv, needle, needle_rt in PARAM_ERRORS + extra_cases:
        expected = needle if env.has_compiler() else (needle_rt or needle)
        p = env.run(tool, *argv, expect=None)
        check(p.returncode == 1, f"{tool} {argv}: exit {p.returncode} on bad input")
        check(expected in p.stderr,
              f"{tool} {argv}: stderr lacks {expected!r}:\n{p.stderr}")
        check(p.stderr.startswith(f"{tool}: "), f"{tool} {argv}: message not prefixed")


def test_view_param_errors(env):
    plan = os.path.join(env.data, "allreduce_2rank.plan.json")
    check_param_errors(env, "plan-view", [
        ([plan, "--param", "channels=2"], "parameters need --algorithm NAME", None),
        (["--algorithm", "default", "-n", "2", "--topology", "ring:2"],
         "--topology is only used by --algorithm NAME", None),
        (["--algorithm", "ring", "-n", "2", "--topology", "ring:4"],
         "--topology ring:4 has 4 ranks but --ranks is 2", NO_COMPILER),
    ])


# --------------------------------------------------------------------------------- plan-bench

ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)"
                 r"\s+(\S+)(.*)$")


def table_rows(stdout):
    rows = []
    for line in stdout.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = ROW.match(line)
        check(m, f"not a table row: {line!r}")
        rows.append(m)
    return rows


def test_bench_threads_table(env):
    for ranks in ("2", "4"):
        p = env.run("plan-bench", "--ranks", ranks, "--backend", "cpu-threads", "--min-bytes",
                    "8", "--max-bytes", "1M", "--step-factor", "4", "--reps", "3")
        header = [l for l in p.stdout.splitlines() if "time(us)" in l]
        check(header and all(c in header[0] for c in
                             ("size", "count", "type", "redop", "root", "algbw(GB/s)",
                              "busbw(GB/s)", "#wrong")), "missing nccl-tests header")
        rows = table_rows(p.stdout)
        sizes = [int(m.group(1)) for m in rows]
        check(sizes == [8 * 4 ** k for k in range(9)], f"sizes {sizes}")
        for m in rows:
            check(m.group(9) == "0", f"#wrong {m.group(9)} at {m.group(1)} B")
            check(m.group(3) == "f32" and m.group(4) == "sum", "type/redop columns")
        # busbw = algbw * 2(n-1)/n for allreduce.
        n = int(ranks)
        for m in rows:
            alg, bus = float(m.group(7)), float(m.group(8))
            check(abs(bus - alg * 2 * (n - 1) / n) <= 0.002 + 1e-3 * bus, f"busbw {bus} vs {alg}")


def test_bench_collectives(env):
    for coll in ("allgather", "reduce_scatter", "alltoall", "broadcast", "reduce", "gather",
                 "scatter"):
        p = env.run("plan-bench", "-n", "3", "-c", coll, "-d", "i32", "--op", "max", "--root",
                    "1", "-b", "4", "-e", "64K", "-f", "16", "--reps", "2", "--json")
        doc = json.loads(p.stdout)
        check(doc["collective"] == coll and doc["rows"], f"{coll}: json")
        for r in doc["rows"]:
            check(r["wrong"] == 0, f"{coll}: #wrong {r['wrong']} at {r['size']}")


def test_bench_json(env):
    p = env.run("plan-bench", "--plan", os.path.join(env.data, "allreduce_2rank.plan.json"),
                "-b", "8", "-e", "4K", "-f", "8", "--reps", "2", "--json")
    doc = json.loads(p.stdout)
    check(doc["tool"] == "plan-bench" and doc["ranks"] == 2 and doc["busbw_factor"] == 1.0,
          f"header fields: {doc}")
    check([r["size"] for r in doc["rows"]] == [8, 64, 512, 4096], "sizes")
    for r in doc["rows"]:
        for key in ("count", "time_us", "algbw_gbps", "busbw_gbps", "wrong", "algorithm"):
            check(key in r, f"row lacks {key}")
        check(r["wrong"] == 0, "wrong results")


def test_bench_bundle(env):
    p = env.run("plan-bench", "--bundle", os.path.join(env.data, "allreduce_2rank.bundle.json"),
                "-b", "1K", "-e", "16K", "--reps", "2", "--json")
    doc = json.loads(p.stdout)
    check(len(doc["rows"]) == 5 and all(r["wrong"] == 0 for r in doc["rows"]), "bundle rows")


def test_bench_bundle_backend_and_topology(env):
    """A bundle runs where it was tuned: a sim bundle times its own topology without --topology,
    and another backend or topology is refused unless --allow-mismatch (then it warns)."""
    if not env.has_compiler():
        print("plan-tune is not in this build: skipped")
        return SKIP
    bundle = env.path("switch2.bundle.json")
    env.run("plan-tune", "--topology", "switch:2", "--backend", "sim", "--collectives",
            "allreduce", "--max-bytes", "4K", "-o", bundle, "-q")
    p = env.run("plan-bench", "--backend", "sim", "--bundle", bundle, "-b", "1K", "-e", "4K",
                "--json")
    doc = json.loads(p.stdout)
    check(doc["ranks"] == 2 and len(doc["rows"]) == 3, "the bundle's own topology")
    p = env.run("plan-bench", "--bundle", bundle, "-b", "1K", "-e", "1K", expect=1)
    check("it was tuned for backend sim, this run is on cpu-threads" in p.stderr and
          "--allow-mismatch" in p.stderr, p.stderr)
    p = env.run("plan-bench", "--backend", "sim", "--topology", "full:2", "--bundle", bundle,
                "-b", "1K", "-e", "1K", expect=1)
    check("it was tuned on topology" in p.stderr, p.stderr)
    # A topology of another size is named by its rank count, not only by its fingerprint.
    p = env.run("plan-bench", "--backend", "sim", "--topology", "switch:4", "--bundle", bundle,
                "-b", "1K", "-e", "1K", expect=1)
    check("it was tuned for 2 ranks, this run's topology has 4" in p.stderr, p.stderr)
    # --ranks against the bundle's own topology: the message says which is which.
    p = env.run("plan-bench", "--backend", "sim", "--bundle", bundle, "--ranks", "4",
                "-b", "1K", "-e", "1K", expect=1)
    check("--ranks asks for 4 ranks but the topology recorded in " + bundle + " has 2 ranks"
          in p.stderr, p.stderr)
    p = env.run("plan-bench", "--bundle", bundle, "-b", "1K", "-e", "1K", "--allow-mismatch")
    check("warning" in p.stderr and "tuned for backend sim" in p.stderr, p.stderr)
    check(table_rows(p.stdout)[0].group(9) == "0", "the mismatched run still checks its results")


def test_bench_shm(env):
    p = env.run("plan-bench", "-n", "3", "--backend", "cpu-shm", "-b", "8", "-e", "256K", "-f",
                "8", "--reps", "2")
    rows = table_rows(p.stdout)
    check(len(rows) == 6 and all(m.group(9) == "0" for m in rows), "cpu-shm rows")


def shm_jobs_of(parent):
    """The cpu-shm jobs whose rank 0 is a child of process `parent`: {job name: rank 0 pid}.
    A control segment /dev/shm/collplan-<job> records rank 0's pid at byte 4096."""
    children = set()
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == parent:
                children.add(int(entry))
        except (OSError, ValueError, IndexError):
            pass
    jobs = {}
    for name in os.listdir("/dev/shm"):
        if not name.startswith("collplan-launch-") or name.count("-") != 2:
            continue
        try:
            with open(os.path.join("/dev/shm", name), "rb") as f:
                f.seek(4096)
                pid = int.from_bytes(f.read(8), "little")
        except OSError:
            continue
        if pid in children:
            jobs[name[len("collplan-"):]] = pid
    return jobs


def test_bench_stopped_by_signal(env):
    """SIGTERM, SIGHUP or SIGINT (Ctrl-C) to plan-bench on cpu-shm left its ranks' segments in
    /dev/shm (about 1.1 GiB each time); now it stops the ranks, removes them, and dies by the
    signal as before."""
    import signal
    import subprocess
    import time
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        cmd = [os.path.join(env.bin, "plan-bench"), "-n", "2", "--backend", "cpu-shm", "-b",
               "1M", "-e", "64M", "--reps", "1000"]
        bench = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        jobs = {}
        for _ in range(600):
            jobs = shm_jobs_of(bench.pid)
            if jobs or bench.poll() is not None:
                break
            time.sleep(0.05)
        check(jobs, f"{sig.name}: plan-bench started no cpu-shm job")
        bench.send_signal(sig)
        try:
            bench.wait(timeout=60)
        except subprocess.TimeoutExpired:
            bench.kill()
            raise Failure(f"{sig.name}: plan-bench still runs 60 s after the signal")
        check(bench.returncode == -sig, f"{sig.name}: exit {bench.returncode}")
        left = [n for n in os.listdir("/dev/shm") for j in jobs if n.startswith("collplan-" + j)]
        check(not left, f"{sig.name}: segments left in /dev/shm: {left}")


def test_bench_sim(env):
    p = env.run("plan-bench", "--backend", "sim", "--topology", "ring:4", "-b", "1K", "-e", "1M",
                "-f", "32", "--json")
    doc = json.loads(p.stdout)
    check(doc["ranks"] == 4 and len(doc["rows"]) == 3, "sim rows")
    check(all(r["wrong"] is None and r["time_us"] > 0 for r in doc["rows"]), "sim values")


def test_bench_wrong_result(env):
    """A plan that computes the wrong thing is refused at load, naming the unit; with
    --no-verify it runs and the data check reports it."""
    wrong = os.path.join(env.data, "wrong_result_2rank.plan.json")
    p = env.run("plan-bench", "--plan", wrong, "-b", "8", "-e", "64", expect=1)
    check("programs[0]: does not compute its allreduce: out[1] of rank 0 is never written"
          in p.stderr, p.stderr)
    p = env.run("plan-bench", "--plan", wrong, "--no-verify",
                "-b", "8", "-e", "64", "--reps", "1", expect=3)
    rows = table_rows(p.stdout)
    check(rows and all(int(m.group(9)) > 0 for m in rows), "#wrong should be > 0")
    check("wrong results" in p.stderr, "no wrong-result message")


def test_verify_files(env):
    """Good plans and bundles prove clean; a plan that never writes an output unit is caught
    statically, naming the unit and the reason (plan-bench only saw it as #wrong)."""
    d = env.data
    good = [os.path.join(d, "allreduce_2rank.plan.json"), os.path.join(d, "allreduce_2rank.bundle.json")]
    p = env.run("plan-verify", *good)
    check(p.stdout.count(": ok (") == 2, p.stdout)
    check("(2 plans proven)" in p.stdout, p.stdout)
    wrong = os.path.join(d, "wrong_result_2rank.plan.json")
    p = env.run("plan-verify", good[0], wrong, expect=1)
    check(f"{wrong}: programs[0]: out[1] of rank 0 is never written (it should hold the reduction "
          "of in[1] of every rank)" in p.stdout, p.stdout)
    check(": ok (1 plan proven)" in p.stdout, "the good file is still reported: " + p.stdout)


def test_verify_json(env):
    d = env.data
    wrong = os.path.join(d, "wrong_result_2rank.plan.json")
    p = env.run("plan-verify", "--json", os.path.join(d, "allreduce_2rank.plan.json"), wrong, expect=1)
    doc = json.loads(p.stdout)
    check([r["ok"] for r in doc] == [True, False], p.stdout)
    check(doc[1]["problems"][0]["path"] == "programs[0]", p.stdout)
    check("out[1] of rank 0 is never written" in doc[1]["problems"][0]["message"], p.stdout)


def test_verify_errors(env):
    d = env.data
    p = env.run("plan-verify", os.path.join(d, "bad_deadlock.plan.json"), expect=1)
    check("deadlock: 2 of 2 ranks cannot finish" in p.stdout, p.stdout)
    p = env.run("plan-verify", env.path("missing.plan.json"), expect=1)
    check("missing.plan.json" in p.stdout and "cannot" in p.stdout, p.stdout)
    p = env.run("plan-verify", expect=None)
    check(p.returncode != 0 and "files is required" in p.stderr, p.stderr)


def test_verify_composed(env):
    """plan-compile --composed stores a hierarchical allreduce as its stages (allgather and
    reduce-scatter always): the file names them, plan-verify proves it, plan-bench runs it with
    checked results, and what cannot compose is refused with its reason."""
    if not env.has_compiler():
        return SKIP
    plan = env.path("composed.plan.json")
    env.run("plan-compile", "-c", "allreduce", "-n", "6", "-a", "hierarchical",
            "--ranks-per-node", "3", "--intra", "ring", "--inter", "recursive-doubling",
            "--composed", "-o", plan)
    doc = json.load(open(plan, encoding="utf-8"))
    check("programs" not in doc and doc["composed"]["ranks_per_node"] == 3,
          f"not a composed plan: {sorted(doc)}")
    stages = doc["composed"]["stages"]
    check(stages["inter_allreduce"]["ranks"] == 2 and stages["intra_allgather"]["ranks"] == 3,
          "stage sizes")
    p = env.run("plan-verify", plan)
    check("ok" in p.stdout, p.stdout)
    p = env.run("plan-bench", "--plan", plan, "-b", "8", "-e", "64K", "-f", "64", "--json")
    rows = json.loads(p.stdout)["rows"]
    check(rows and all(r["wrong"] == 0 for r in rows), f"wrong results: {rows}")
    # Hierarchical allgather and reduce-scatter are always stored as their stages.
    for coll, names in (("allgather", ["inter_allgather", "intra_allgather"]),
                        ("reduce_scatter", ["intra_reduce_scatter", "inter_reduce_scatter"])):
        staged = env.path(f"composed-{coll}.plan.json")
        env.run("plan-compile", "-c", coll, "-n", "6", "-a", "hierarchical",
                "--ranks-per-node", "3", "--intra", "ring", "--inter", "ring", "-o", staged)
        doc = json.load(open(staged, encoding="utf-8"))
        check(sorted(doc["composed"]["stages"]) == sorted(names), f"{coll} stages")
        p = env.run("plan-verify", staged)
        check("ok" in p.stdout, p.stdout)
        p = env.run("plan-bench", "--plan", staged, "-b", "8", "-e", "64K", "-f", "64", "--json")
        rows = json.loads(p.stdout)["rows"]
        check(rows and all(r["wrong"] == 0 for r in rows), f"{coll} wrong results: {rows}")
        p = env.run("plan-compile", "-c", coll, "-n", "6", "-a", "hierarchical",
                    "--ranks-per-node", "3", "--emit", "mlir", expect=1)
        check("from stage plans of their own sizes" in p.stderr and "not as one schedule"
              in p.stderr, p.stderr)
    cases = [
        (["-n", "6", "--ranks-per-node", "4"], "ranks per node 4 does not divide 6 ranks"),
        (["-n", "6"], "ranks per node is 0 (take it from the topology) but no topology"),
        (["-n", "6", "--ranks-per-node", "3", "--emit", "mlir"], "--composed writes a plan"),
    ]
    for extra, reason in cases:
        p = env.run("plan-compile", "-c", "allreduce", "-a", "hierarchical", "--composed",
                    *extra, "-o", env.path("x.json"), expect=1)
        check(reason in p.stderr, f"{extra}: {p.stderr}")
    p = env.run("plan-compile", "-c", "broadcast", "-n", "4", "-a", "hierarchical", "--composed",
                "-o", env.path("x.json"), expect=1)
    check("a composed plan is an allreduce, allgather or reduce_scatter, not broadcast"
          in p.stderr, p.stderr)
    p = env.run("plan-compile", "-c", "allreduce", "-n", "4", "-a", "ring", "--composed",
                "-o", env.path("x.json"), expect=1)
    check("algorithm 'ring' is not built from stages (those that are: hierarchical)" in p.stderr,
          p.stderr)


def test_bench_mpi_baseline(env):
    if not os.access(os.path.join(env.bin, "collplan-mpi-baseline"), os.X_OK):
        print("collplan-mpi-baseline was not built (no MPI): skipped")
        return SKIP
    p = env.run("plan-bench", "-n", "2", "-b", "8", "-e", "64K", "-f", "32", "--reps", "3",
                "--baseline", "mpi", "--json")
    doc = json.loads(p.stdout)
    check(doc["baseline"].startswith("MPI_Allreduce"), "baseline name")
    for r in doc["rows"]:
        check(r["baseline_us"] > 0 and r["ratio"] > 0 and r["wrong"] == 0, f"row {r}")


def test_bench_errors(env):
    d = env.data
    plan = os.path.join(d, "allreduce_2rank.plan.json")
    cases = [
        (["--ranks", "2", "-b", "1M", "-e", "8"], "is larger than --max-bytes"),
        (["--ranks", "2", "-e", "64Q"], "--max-bytes: \"64Q\" is not a byte size"),
        (["--ranks", "2", "-b", "0"], "--min-bytes must be at least 1"),
        (["--ranks", "2", "-f", "1"], "--step-factor must be at least 2"),
        (["--ranks", "2", "-f", "-1"], "--step-factor must be at least 2, got -1"),
        (["--ranks", "2", "-b", "64G", "-e", "64G"],
         "the call buffers of 2 ranks at the largest size need 256.0 GiB, more than this "
         "machine's"),
        (["--ranks", "2", "--backend", "gpu"], "unknown backend \"gpu\""),
        (["--ranks", "2", "--collective", "allsum"], "--collective: unknown value \"allsum\""),
        (["--ranks", "2", "--dtype", "f17"], "--dtype: unknown value \"f17\""),
        (["--ranks", "2", "--op", "avg"], "--op: unknown value \"avg\""),
        (["--plan", "/nonexistent/x.plan.json"], "/nonexistent/x.plan.json"),
        (["--plan", "/tmp"], "/tmp: cannot read: Is a directory"),
        (["--backend", "sim", "--topology", "/tmp", "--ranks", "2"],
         "/tmp: cannot read: Is a directory"),
        (["--plan", os.path.join(d, "bad_deadlock.plan.json")], "deadlock"),
        (["--plan", plan, "--ranks", "4"], "the plan has 2 ranks but --ranks is 4"),
        (["--plan", plan, "--collective", "allgather"], "the plan is for allreduce"),
        (["--bundle", os.path.join(d, "allreduce_2rank.bundle.json"), "-d", "f64"],
         "no table for allreduce f64 sum"),
        (["--plan", plan, "--algorithm", "default"], "not several"),
        (["--backend", "cpu-threads"], "--ranks is required"),
        (["--backend", "sim", "--ranks", "2"], "needs --topology"),
        (["--backend", "sim", "--topology", "bogus:3"], "unknown topology"),
        (["--backend", "sim", "--topology", "ring:4", "--plan", plan], "has 4 ranks"),
        (["--ranks", "2", "--topology", "ring:2"], "only used by --backend sim"),
        (["--ranks", "2", "--baseline", "nvshmem"],
         "--baseline: unknown baseline \"nvshmem\" (expected: mpi, nccl)"),
        (["--ranks", "2", "--baseline", "nccl"],
         "so it needs a backend whose ranks run on devices"),
        (["--ranks", "2", "--dtype", "f16", "--baseline", "mpi"], "MPI has no f16"),
        (["--ranks", "2", "-c", "broadcast", "--root", "5"], "--root 5 is out of range"),
    ]
    if "mpi" in env.run("plan-bench", "--help").stdout.split("Backend: ")[1].split("\n")[0]:
        # Outside mpirun there is no job to measure on: refused, naming mpirun.
        cases.append((["--ranks", "2", "--backend", "mpi", "--baseline", "mpi"],
                      "this process was not started by mpirun"))
        cases.append((["--backend", "mpi"], "mpirun -np N plan-bench --backend mpi"))
    for argv, needle in cases:
        p = env.run("plan-bench", *argv, expect=None)
        check(p.returncode not in (0, 3), f"plan-bench {argv}: exit {p.returncode} on bad input")
        check(needle in p.stderr, f"plan-bench {argv}: stderr lacks {needle!r}:\n{p.stderr}")


def test_bench_named_algorithm(env):
    """With the compiler built, --algorithm NAME compiles and runs it; without, a clear error."""
    if env.has_compiler():
        p = env.run("plan-bench", "--algorithm", "rabenseifner", "--ranks", "4", "-e", "64K",
                    "--json")
        doc = json.loads(p.stdout)
        check(doc["rows"] and all(r["wrong"] == 0 for r in doc["rows"]), f"rows {doc['rows']}")
        p = env.run("plan-bench", "--algorithm", "zigzag", "--ranks", "2", expect=None)
        check(p.returncode == 1 and "unknown algorithm 'zigzag'" in p.stderr, p.stderr)
    else:
        p = env.run("plan-bench", "--algorithm", "rdh", "--ranks", "2", expect=None)
        check(p.returncode == 1 and "named algorithms need plan-compile" in p.stderr, p.stderr)


def test_bench_named_params(env):
    """--algorithm NAME --param KEY=VALUE on cpu-threads: correct at every size, named."""
    if not env.has_compiler():
        p = env.run("plan-bench", "--algorithm", "ring", "--param", "channels=2", "-n", "2",
                    expect=1)
        check(NO_COMPILER in p.stderr, p.stderr)
        return None
    p = env.run("plan-bench", "--algorithm", "ring", "--param", "channels=2", "--param",
                "bidirectional=true", "--param", "slices=2", "--backend", "cpu-threads", "-n",
                "2", "-b", "8", "-e", "4K", "-f", "8", "--reps", "2")
    check("# plans: ring channels=2 bidirectional=true slices=2" in p.stdout,
          f"header does not name the parameters:\n{p.stdout}")
    rows = table_rows(p.stdout)
    check([int(m.group(1)) for m in rows] == [8, 64, 512, 4096], "sizes")
    for m in rows:
        check(m.group(9) == "0", f"#wrong {m.group(9)} at {m.group(1)} B")
        check(m.group(10).split()[-1] == "ring", f"algorithm column: {m.group(10)!r}")
    p = env.run("plan-bench", "--algorithm", "pipelined-tree", "--param", "fanout=3", "--param",
                "pipeline=2", "-c", "broadcast", "--root", "1", "-n", "2", "-b", "8", "-e",
                "1K", "-f", "8", "--reps", "2", "--json")
    doc = json.loads(p.stdout)
    check(doc["rows"] and all(r["wrong"] == 0 and r["algorithm"] == "pipelined-tree"
                              for r in doc["rows"]), f"rows {doc['rows']}")


def test_bench_param_errors(env):
    plan = os.path.join(env.data, "allreduce_2rank.plan.json")
    check_param_errors(env, "plan-bench", [
        (["--plan", plan, "--param", "channels=2"], "parameters need --algorithm NAME", None),
    ])


# ------------------------------------------------------------------------ schedule templates

def template_file(env, name):
    """An example template of plans/examples/templates."""
    return os.path.normpath(os.path.join(env.data, "..", "..", "..", "plans", "examples",
                                         "templates", name))


def test_view_schedule(env):
    """plan-view --schedule FILE -n N draws the template instantiated for N ranks."""
    if not env.has_compiler():
        p = env.run("plan-view", "--schedule", template_file(env, "ring-allreduce.mlir"), "-n",
                    "4", expect=1)
        check("schedule templates need the compiler" in p.stderr, p.stderr)
        return None
    out = env.path("ring-template.svg")
    env.run("plan-view", "--schedule", template_file(env, "ring-allreduce.mlir"), "-n", "4",
            "-o", out)
    rows, ops, arrows = svg_counts(parse_svg(out))
    check(len(rows) == 4 and len(arrows) == 24, f"{len(rows)} ranks, {len(arrows)} transfers")
    p = env.run("plan-view", "--schedule", template_file(env, "grid-allreduce.mlir"), "-n", "6",
                "--param", "rows=4", "-o", env.path("grid.svg"), expect=1)
    check("requires: rows must divide the rank count (ranks=6, rows=4)" in p.stderr, p.stderr)
    p = env.run("plan-view", "--schedule", os.path.join(env.data, "allreduce_2rank.plan.json"),
                "-n", "2", expect=1)
    check("--schedule" in p.stderr and "allreduce_2rank.plan.json" in p.stderr, p.stderr)


def test_bench_schedule(env):
    """plan-bench --schedule FILE runs a template's plan on cpu-threads: correct at every size."""
    if not env.has_compiler():
        return SKIP
    p = env.run("plan-bench", "--schedule", template_file(env, "recursive-doubling-allreduce.mlir"),
                "-n", "3", "-b", "8", "-e", "4K", "-f", "8", "--reps", "2", "--json")
    doc = json.loads(p.stdout)
    check(doc["rows"] and all(r["wrong"] == 0 and r["algorithm"] == "recursive_doubling_allreduce"
                              for r in doc["rows"]), f"rows {doc['rows']}")
    p = env.run("plan-bench", "--schedule", template_file(env, "grid-allreduce.mlir"),
                "--algorithm", "ring_allreduce", "-n", "2", expect=1)
    check("unknown algorithm 'ring_allreduce'" in p.stderr, p.stderr)


def tune_with_templates(env, backend_args, name):
    """plan-tune with two example templates beside the built-ins: their variants are enumerated,
    measured or reported not applicable with the template's reason, and named by their file."""
    report = env.path(name)
    env.run("plan-tune", *backend_args, "-n", "4", "--collectives", "allreduce",
            "--algorithms", "ring,ring_allreduce,grid_allreduce", "--max-bytes", "4K",
            "--schedule",
            template_file(env, "ring-allreduce.mlir"), "--schedule",
            template_file(env, "grid-allreduce.mlir"), "-o", env.path(name + ".bundle.json"),
            "--report-dir", report, "-q")
    doc = json.load(open(os.path.join(report, "report.json"), encoding="utf-8"))
    text = json.dumps(doc)
    for template in ("ring_allreduce", "grid_allreduce"):
        check(template in text, f"{template} is not in the report")
    check(template_file(env, "grid-allreduce.mlir") in text or "grid-allreduce.mlir" in text,
          "the report does not say where the grid template came from")
    check("rows must divide the rank count" in text,
          "grid with rows=8 on 4 ranks is not reported as not applicable with its reason")


def test_tune_schedule_threads(env):
    if not env.has_compiler():
        return SKIP
    tune_with_templates(env, ["--backend", "cpu-threads"], "threads")


def test_tune_schedule_sim(env):
    if not env.has_compiler():
        return SKIP
    tune_with_templates(env, ["--backend", "sim", "--topology", "switch:4"], "sim")


def test_tune_without_output(env):
    """plan-tune without -o says at once that it will write no bundle; -q keeps it quiet."""
    if not env.has_compiler():
        return SKIP
    args = ["--backend", "sim", "--topology", "switch:4", "--collectives", "allreduce",
            "--algorithms", "ring", "--max-bytes", "1K", "--quick"]
    p = env.run("plan-tune", *args)
    note = "no -o FILE: the report is printed but no bundle will be written"
    check(note in p.stderr, f"plan-tune without -o did not say so:\n{p.stderr}")
    check("## allreduce" in p.stdout, f"plan-tune without -o printed no report:\n{p.stdout}")
    quiet = env.run("plan-tune", *args, "-q")
    check(note not in quiet.stderr, "plan-tune -q still printed the no-bundle note")


if __name__ == "__main__":
    sys.exit(run_main(globals(), timeout=300, with_data=True))
