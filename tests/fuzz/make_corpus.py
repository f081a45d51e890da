#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets (corpus/<target>/) from the repository's own inputs.

  tests/fuzz/make_corpus.py [--plan-compile build/bin/plan-compile]

Sources: the plan, bundle and topology test data, the shipped bundles (their smaller plans and
their topologies), the lit tests and the example schedules (one file per split-input section,
comment lines removed); with plan-compile, also compiled plans, bundles and IR of every
collective kind in JSON and CBOR. Files over MAX_BYTES are left out, because libFuzzer sizes its
inputs after the largest seed. Files named regression-* (reproducers of fixed bugs, and the
regression-deep-* seeds that reach the nesting bounds and raise the input size to 64 KiB) are
kept.
"""
import argparse
import hashlib
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/fuzz/corpus"
MAX_BYTES = 8192
UINT64_MAX = 2**64 - 1

# plan-compile runs: (name, arguments); plans come in JSON, some in CBOR.
COMPILED = [
    ("allreduce-ring-4", ["-c", "allreduce", "-n", "4", "-a", "ring"]),
    ("allreduce-rdh-4", ["-c", "allreduce", "-n", "4", "-a", "recursive-doubling", "--op", "max"]),
    ("allreduce-tree-3", ["-c", "allreduce", "-n", "3", "-a", "binomial-tree"]),
    ("allgather-ring-3", ["-c", "allgather", "-n", "3", "-a", "ring"]),
    ("reduce_scatter-ring-4", ["-c", "reduce_scatter", "-n", "4", "-a", "ring", "--op", "min"]),
    ("broadcast-tree-4", ["-c", "broadcast", "-n", "4", "-a", "binomial-tree", "--root", "2"]),
    ("reduce-tree-4", ["-c", "reduce", "-n", "4", "-a", "binomial-tree", "--root", "1"]),
    ("alltoall-pairwise-4", ["-c", "alltoall", "-n", "4", "-a", "pairwise"]),
    ("barrier-dissemination-3", ["-c", "barrier", "-n", "3", "-a", "dissemination"]),
    ("gather-flat-3", ["-c", "gather", "-n", "3", "-a", "flat", "--root", "1"]),
    ("scatter-flat-3", ["-c", "scatter", "-n", "3", "-a", "flat"]),
    ("allreduce-two-shot-4", ["-c", "allreduce", "-n", "4", "-a", "two-shot"]),
    ("allreduce-dbt-4", ["-c", "allreduce", "-n", "4", "-a", "double-binary-tree"]),
    ("reduce_scatter-halving-4", ["-c", "reduce_scatter", "-n", "4", "-a",
                                  "recursive-halving"]),
]
# Topologies compiled into bundles, so that their documents land in both corpora.
TOPOLOGIES = ["ring:4", "line:3", "full:3", "switch:4", "hypercube:2", "torus:2x2",
              "torus:2x2x2", "pcie:4", "fattree:2x2x1"]


def compact(doc):
    return (json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n").encode()


class Writer:
    def __init__(self, target):
        self.dir = CORPUS / target
        self.dir.mkdir(parents=True, exist_ok=True)
        self.seen = set()
        for old in self.dir.iterdir():
            if old.name.startswith("regression-"):
                self.seen.add(hashlib.sha1(old.read_bytes()).digest())
            else:
                old.unlink()

    def add(self, name, data):
        digest = hashlib.sha1(data).digest()
        if len(data) > MAX_BYTES or digest in self.seen:
            return
        self.seen.add(digest)
        (self.dir / name).write_bytes(data)


def ir_sections(path):
    """The split-input sections of a .mlir file, without comment lines."""
    text = path.read_text()
    for section in text.split("// -----"):
        lines = [l for l in section.splitlines() if not l.lstrip().startswith("//")]
        body = "\n".join(lines).strip()
        if body:
            yield body + "\n"


def run(tool, args):
    done = subprocess.run([tool, *args], capture_output=True)
    if done.returncode != 0:
        sys.exit(f"make_corpus: {tool} {' '.join(args)} failed:\n{done.stderr.decode()}")
    return done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan-compile", help="plan-compile binary (adds compiled inputs)")
    args = parser.parse_args()

    plans, bundles = Writer("fuzz-plan"), Writer("fuzz-bundle")
    topologies, schedules = Writer("fuzz-topology"), Writer("fuzz-schedule")

    for path in sorted((ROOT / "tests/runtime/plan/data").iterdir()):
        (bundles if ".bundle." in path.name else plans).add(path.name, path.read_bytes())
    e2e = ROOT / "tests/e2e/data/wrong_result_2rank.plan.json"
    plans.add(e2e.name, e2e.read_bytes())
    for path in sorted((ROOT / "tests/runtime/topology/data").iterdir()):
        topologies.add(path.name, path.read_bytes())

    for path in sorted((ROOT / "plans/bundles").glob("*/bundle.json")):
        machine = path.parent.name
        bundle = json.loads(path.read_text())
        topologies.add(f"{machine}.json", compact(bundle["topology"]))
        for table in bundle["tables"]:
            kind = table["collective"]
            for bucket in table["buckets"]:
                plan = bucket["plan"]
                plans.add(f"{machine}-{kind}-{plan['algorithm']}-{bucket['min_bytes']}.json",
                          compact(plan))
            # The table's first bucket alone, stretched over every size: a one-bucket bundle.
            small = dict(bundle, tables=[dict(table, buckets=[dict(table["buckets"][0],
                                                                    max_bytes=UINT64_MAX)])])
            bundles.add(f"{machine}-{kind}.json", compact(small))

    for path in sorted((ROOT / "tests/lit").rglob("*.mlir")) + [
            ROOT / "plans/examples/schedules.mlir"]:
        stem = str(path.relative_to(ROOT)).replace("/", "-").removesuffix(".mlir")
        for i, section in enumerate(ir_sections(path)):
            schedules.add(f"{stem}-{i}.mlir", section.encode())
    for i, section in enumerate(
            (ROOT / "plans/examples/schedules.mlir").read_text().split("\n\n")):
        if "coll." in section:
            schedules.add(f"plans-examples-schedules-op-{i}.mlir", section.encode() + b"\n")

    if args.plan_compile:
        with tempfile.TemporaryDirectory() as tmp:
            for name, flags in COMPILED:
                plans.add(f"compiled-{name}.json", run(args.plan_compile, flags))
                cbor = pathlib.Path(tmp) / f"{name}.cbor"
                run(args.plan_compile, [*flags, "-o", str(cbor)])
                plans.add(f"compiled-{name}.cbor", cbor.read_bytes())
                schedules.add(f"compiled-{name}-schedule.mlir",
                              run(args.plan_compile, [*flags, "--emit", "mlir"]))
                schedules.add(f"compiled-{name}-program.mlir",
                              run(args.plan_compile, [*flags, "--emit", "program"]))
            for spec in TOPOLOGIES:
                name = spec.replace(":", "-")
                doc = json.loads(run(args.plan_compile, ["-c", "allgather", "-a", "ring", "-t",
                                                         spec, "--emit", "bundle"]))
                bundles.add(f"compiled-allgather-{name}.json", compact(doc))
                topologies.add(f"generated-{name}.json", compact(doc["topology"]))
            cbor = pathlib.Path(tmp) / "bundle.cbor"
            run(args.plan_compile, ["-c", "allreduce", "-n", "2", "-a", "ring", "-t", "ring:2",
                                    "--emit", "bundle", "-o", str(cbor)])
            bundles.add("compiled-allreduce-ring-2.cbor", cbor.read_bytes())

    for writer in (plans, bundles, topologies, schedules):
        print(f"{writer.dir.relative_to(ROOT)}: {len(list(writer.dir.iterdir()))} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
