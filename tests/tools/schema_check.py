#!/usr/bin/env python3
"""Holds the JSON Schemas in schemas/ and meshgen's own checks together.

A real validator (python3-jsonschema, Draft 2020-12) runs over:
- every mesh and inventory under configs/ and the valid test fixtures:
  each must satisfy its schema;
- every command-line case in tests/cases/: a case whose expected errors
  include a structural check (one the schema can express) must be rejected
  by the schema, and a case with only semantic errors (sizes against
  devices, DCN against hosts, ...) or none must be accepted.
Cases the schema cannot judge are skipped and counted: YAML that does not
load, duplicate keys (the YAML loader keeps the last), integers past 64
bits (JSON has no such limit), and cases that test the command line rather
than their own file (no file, several files, usage errors).
"""
import glob
import json
import os
import re
import sys

import jsonschema
import yaml

STRUCTURAL = {
    "key-unknown", "key-required", "type-mismatch", "enum-value", "format-version",
    "axes-count", "dims-count", "axis-count", "name-identifier", "axis-name-identifier",
    "axis-name-keyword", "axis-name-length", "shape-positive", "dcn-positive",
    "devices-positive", "sharding-name", "sharding-shape-positive",
}
UNJUDGED = {"yaml-syntax", "yaml-limits", "key-duplicate", "int-range", "input-too-large", "io"}


def main():
    root = sys.argv[1]
    mesh_schema = json.load(open(os.path.join(root, "schemas/mesh.schema.json")))
    inv_schema = json.load(open(os.path.join(root, "schemas/inventory.schema.json")))
    cls = jsonschema.Draft202012Validator
    cls.check_schema(mesh_schema)
    cls.check_schema(inv_schema)
    mesh_v, inv_v = cls(mesh_schema), cls(inv_schema)
    fails, checked, skipped = [], 0, 0

    def errors(doc):
        v = inv_v if isinstance(doc, dict) and "meshgen-inventory" in doc else mesh_v
        return sorted(v.iter_errors(doc), key=lambda e: list(e.path))

    valid = (glob.glob(os.path.join(root, "configs/**/*.yaml"), recursive=True)
             + glob.glob(os.path.join(root, "tests/e2e/*.yaml"))
             + glob.glob(os.path.join(root, "tests/golden/*/spec.yaml"))
             + glob.glob(os.path.join(root, "tests/data/inventory/*.yaml"))
             + glob.glob(os.path.join(root, "tests/cases/inventories/*.yaml")))
    for path in sorted(valid):
        errs = errors(yaml.safe_load(open(path)))
        checked += 1
        if errs:
            fails.append(f"{path}: the schema rejects a valid file: {errs[0].message}")

    for path in sorted(glob.glob(os.path.join(root, "tests/cases/*.yaml"))):
        text = open(path, encoding="utf-8", errors="replace").read()
        expected = set(re.findall(r"^# error: ([a-z0-9-]+) ", text, re.M))
        command = re.search(r"^# meshgen:[ \t]*(.*)$", text, re.M).group(1)
        usage = re.search(r"^# (no-file|exit: 2)", text, re.M) or "{file}" in command
        if expected & UNJUDGED or usage:
            skipped += 1
            continue
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError:
            skipped += 1
            continue
        checked += 1
        rejected = bool(errors(doc))
        if expected & STRUCTURAL and not rejected:
            fails.append(f"{path}: meshgen reports {sorted(expected & STRUCTURAL)} but the "
                         "schema accepts the file")
        if not expected & STRUCTURAL and rejected:
            fails.append(f"{path}: meshgen's structural checks pass but the schema rejects it: "
                         f"{errors(doc)[0].message}")
    for f in fails:
        print("FAIL:", f)
    print(f"schema: {checked} files judged, {skipped} skipped, {len(fails)} disagreements")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
