#!/usr/bin/env python3
"""Checks that no #include runs back up the layers: check_layers.py [SOURCE_ROOT].

The layers, lowest first: runtime/ (no MLIR), dialects/, compiler/, tuner/, tools/. A file may
include its own layer and the layers below it; tests/ and bench/ may include any layer, and no
layer includes tests/ or bench/. Prints every include that breaks the rule, with its file and
line, and exits 1; exits 0 when there is none.
"""
import os
import re
import sys

LAYERS = ["runtime", "dialects", "compiler", "tuner", "tools"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/')
SOURCES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".inc", ".td")


def violations(root):
    """Yields (path, line number, included top-level directory) for each include upwards."""
    for rank, layer in enumerate(LAYERS):
        allowed = set(LAYERS[: rank + 1])
        for directory, _, files in os.walk(os.path.join(root, layer)):
            for name in sorted(files):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, text in enumerate(f, 1):
                        m = INCLUDE.match(text)
                        if not m:
                            continue
                        top = m.group(1)
                        if top in LAYERS + ["tests", "bench"] and top not in allowed:
                            yield os.path.relpath(path, root), number, top


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    found = list(violations(root))
    for path, number, top in found:
        layer = path.split(os.sep)[0]
        print(f"{path}:{number}: {layer}/ includes {top}/, a layer above it")
    if found:
        print(f"check_layers: {len(found)} include(s) run back up the layers "
              f"({' < '.join(LAYERS)})")
        return 1
    print("check_layers: no include runs back up the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
