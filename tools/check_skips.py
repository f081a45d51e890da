#!/usr/bin/env python3
"""Fails when a test that needs no GPU was skipped.

Usage: check_skips.py BUILD_DIR JUNIT_XML

`tools/setup.sh test` installs every dependency of the suite, so a test that skips there hides a
suite that did not run (a library the configuration did not find, say). Only tests labelled
`gpu` (they need a GPU, which the set-up cannot install) may skip; each other skipped test is
listed with its reason, and the exit status is 1.
"""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True


def gpu_tests(build_dir):
    """Names of the tests labelled gpu, from CTest's own listing."""
    listing = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build_dir, check=True,
                             capture_output=True, text=True).stdout
    names = set()
    for test in json.loads(listing).get("tests", []):
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS" and "gpu" in prop.get("value", []):
                names.add(test["name"])
    return names


def skip_reason(case):
    """The skip message GoogleTest printed (the line after 'Skipped'), or CTest's."""
    out = (case.findtext("system-out") or "").splitlines()
    for i, line in enumerate(out):
        if line.endswith(": Skipped") and i + 1 < len(out):
            return out[i + 1].strip()
    skipped = case.find("skipped")
    return skipped.get("message", "") if skipped is not None else ""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    build_dir, junit = sys.argv[1], sys.argv[2]
    try:
        cases = ET.parse(junit).getroot().iter("testcase")
    except (OSError, ET.ParseError) as e:
        sys.exit(f"check_skips.py: cannot read the test results {junit}: {e}")
    allowed = gpu_tests(build_dir)
    hidden = [(c.get("name"), skip_reason(c)) for c in cases
              if c.find("skipped") is not None and c.get("name") not in allowed]
    if not hidden:
        return 0
    print(f"check_skips.py: {len(hidden)} test(s) skipped although the set-up installs what "
          "they need (only tests labelled gpu may skip here):", file=sys.stderr)
    for name, reason in hidden:
        print(f"  {name}: {reason}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
