#!/usr/bin/env python3
"""Validates the good example plan and bundle files against plans/schema (needs python3-jsonschema)."""
import json
import pathlib
import sys

import jsonschema
from referencing import Registry, Resource

root = pathlib.Path(sys.argv[1])
data = pathlib.Path(__file__).resolve().parent / "data"
plan_schema = json.loads((root / "plans/schema/plan.schema.json").read_text())
bundle_schema = json.loads((root / "plans/schema/bundle.schema.json").read_text())
topology_schema = json.loads((root / "plans/schema/topology.schema.json").read_text())
registry = Registry().with_resources([
    (plan_schema["$id"], Resource.from_contents(plan_schema)),
    (bundle_schema["$id"], Resource.from_contents(bundle_schema)),
    (topology_schema["$id"], Resource.from_contents(topology_schema)),
])
for schema in (plan_schema, bundle_schema):
    jsonschema.Draft202012Validator.check_schema(schema)
defaults_schema = json.loads((root / "plans/schema/defaults.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(defaults_schema)
jsonschema.Draft202012Validator(defaults_schema).validate(
    json.loads((root / "plans/defaults.json").read_text()))
print("plans/defaults.json: valid")
checks = [(plan_schema, "allreduce_2rank.plan.json"), (bundle_schema, "allreduce_2rank.bundle.json")]
for schema, name in checks:
    jsonschema.Draft202012Validator(schema, registry=registry).validate(
        json.loads((data / name).read_text()))
    print(f"{name}: valid")
# A bad file the schema alone can reject: it lacks the required "units".
bad = json.loads((data / "bad_missing_units.plan.json").read_text())
if jsonschema.Draft202012Validator(plan_schema, registry=registry).is_valid(bad):
    sys.exit("bad_missing_units.plan.json unexpectedly passes the schema")
