#!/usr/bin/env python3
"""Validates the example choices file against plans/schema/nccl-tuner.schema.json, and checks that
files the plugin refuses for a reason a schema can state fail it too (needs python3-jsonschema)."""
import copy
import json
import pathlib
import sys

import jsonschema

root = pathlib.Path(sys.argv[1])
schema = json.loads((root / "plans/schema/nccl-tuner.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
data = pathlib.Path(__file__).resolve().parent / "data"
example = json.loads((data / "example.nccl-tuner.json").read_text())
validator.validate(example)
print("example.nccl-tuner.json: valid")

bad = {
    "wrong format": ("format", "collplan-defaults"),
    "unknown protocol": ("protocol", "fast"),
    "unknown field": ("chanels", 4),
    "too many channels": ("channels", 65),
    "unknown collective": ("collective", "alltoall"),
}
for what, (field, value) in bad.items():
    doc = copy.deepcopy(example)
    (doc if field == "format" else doc["rules"][0])[field] = value
    if validator.is_valid(doc):
        sys.exit(f"a file with {what} unexpectedly passes the schema")
    print(f"{what}: refused")
