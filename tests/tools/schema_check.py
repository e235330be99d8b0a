#!/usr/bin/env python3
"""Holds the JSON Schemas in schemas/ and meshgen's own checks together.

Two independent validators judge the same JSON instances: python3-jsonschema
(Draft 2020-12) and ajv (tools/npm/validate.js, installed by
scripts/setup-deps.sh). The two must agree on every instance, and each must
give the expected verdict where there is one:
- every mesh and inventory under configs/ and the valid test fixtures must
  satisfy its schema;
- the command-line cases in tests/cases/ and the bad inventories in
  tests/data/inventory/errors/: a file with an error from a check the schema
  expresses (STRUCTURAL) must be rejected, a file with only errors no schema
  can express, or none, must be accepted. The errors are the ones
  `meshgen validate --format json` reports on the file (with the case's
  --inventory, run where run_case.py runs the case);
- a spec with 4097 shardings, written here, is judged in the same way;
- `meshgen resolve` of every mesh under configs/, and the resolve.json
  golden files, must satisfy resolve.schema.json; one of them with a stable
  key removed (each in turn) or another version must not, and with keys
  added it still must (docs/reference.md §7: stable keys, others free).
Skipped and counted: YAML that does not load or has no JSON form,
duplicate keys (the YAML loader keeps the last), integers past 64 bits
(JSON has no such limit), and cases that test the command line rather than
their own file (no file, several files, usage errors).

    schema_check.py ROOT MESHGEN NODE
"""
import copy
import glob
import json
import os
import re
import shlex
import shutil
import sys

import jsonschema
import yaml

import mgtest

STRUCTURAL = {
    "key-unknown", "key-required", "type-mismatch", "enum-value", "format-version",
    "axes-count", "dims-count", "axis-count", "name-identifier", "axis-name-identifier",
    "axis-name-keyword", "axis-name-length", "axis-name-unique", "shape-positive",
    "shape-infer", "dcn-positive", "devices-positive", "sharding-name",
    "sharding-shape-positive", "shardings-count", "inventory-empty", "inventory-topology",
    "inventory-slice", "tpu-family",
}
# Checks the schema expresses in part: it refuses a hostlist with a character
# no host name has, but not one with unbalanced brackets. A file whose only
# such error is one of these may go either way.
PARTIAL = {"hostlist"}
UNJUDGED = {"yaml-syntax", "yaml-limits", "key-duplicate", "int-range", "input-too-large", "io"}

# The keys of the resolve output that docs/reference.md calls stable, by
# where they sit: the top level, and the first entry of each list or map.
STABLE = {
    (): ["meshgen-resolve", "name", "axes", "mpmd", "hosts", "devices", "mesh", "processes",
         "shardings"],
    ("axes", 0): ["name", "size", "ici", "dcn", "type"],
    ("hosts", 0): ["name", "slice"],
    ("devices", 0): ["id", "host", "local", "kind", "pci", "model", "numa", "cpuset"],
    ("processes", 0): ["id", "host", "devices"],
    ("shardings", None): ["spec", "shards"],
}


def at(doc, path):
    """The object at path; None in a path stands for a map's first key."""
    for p in path:
        doc = doc[next(iter(doc)) if p is None else p]
    return doc


def resolve_variants(base):
    """(label, instance, must be valid) for the stable-key mutations of base."""
    out = []
    for path, keys in STABLE.items():
        where = "/".join(str(p) for p in path) or "top level"
        for key in keys:
            doc = copy.deepcopy(base)
            del at(doc, path)[key]
            out.append((f"without {where}.{key}", doc, False))
        doc = copy.deepcopy(base)
        at(doc, path)["added-by-a-later-meshgen"] = {"any": ["thing"]}
        out.append((f"with a new key in {where}", doc, True))
    doc = copy.deepcopy(base)
    doc["meshgen-resolve"] = 2
    out.append(("with meshgen-resolve 2", doc, False))
    return out


def expectation(checks):
    """True (must be valid), False (must be rejected) or None (either)."""
    if checks & STRUCTURAL:
        return False
    return None if checks & PARTIAL else True


def main():
    root, meshgen, node = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    schemas = {}
    for name in ("mesh", "inventory", "resolve"):
        path = os.path.join(root, f"schemas/{name}.schema.json")
        schemas[name] = path
        jsonschema.Draft202012Validator.check_schema(json.loads(mgtest.read(path)))
    if not shutil.which(node):
        sys.exit(f"schema: no node ('{node}'): scripts/setup-deps.sh installs nodejs and npm")
    if not os.path.exists(os.path.join(root, "tools/npm/node_modules/ajv/package.json")):
        sys.exit("schema: ajv is not installed in tools/npm/node_modules: run "
                 "scripts/setup-deps.sh (it runs npm ci there)")

    # (label, schema, JSON text, expected: True valid / False invalid / None either)
    items, skipped = [], 0

    def add(label, schema, doc, expected):
        nonlocal skipped
        try:
            text = json.dumps(doc, allow_nan=False)
        except (TypeError, ValueError):
            skipped += 1  # a YAML timestamp, binary, set or NaN: no JSON form
            return
        items.append((label, schema, text, expected))

    def add_yaml(path, text, expected):
        nonlocal skipped
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError:
            skipped += 1
            return
        kind = "inventory" if isinstance(doc, dict) and "meshgen-inventory" in doc else "mesh"
        label = os.path.relpath(path, root) if path.startswith(root + os.sep) else path
        add(label, kind, doc, expected)

    valid = (glob.glob(os.path.join(root, "configs/**/*.yaml"), recursive=True)
             + glob.glob(os.path.join(root, "tests/e2e/*.yaml"))
             + glob.glob(os.path.join(root, "tests/golden/*/spec.yaml"))
             + glob.glob(os.path.join(root, "tests/data/inventory/*.yaml"))
             + glob.glob(os.path.join(root, "tests/cases/inventories/*.yaml")))
    for path in sorted(valid):
        add_yaml(path, mgtest.read_text(path), True)

    def judge(path, options):
        """Adds a file with the verdict meshgen's own checks give it."""
        nonlocal skipped
        r = mgtest.meshgen(meshgen, "validate", "--format", "json", *options,
                           os.path.basename(path), text=True, cwd=os.path.dirname(path))
        # 2: an input the spec names cannot be read (an I/O error).
        if r.returncode not in (0, 1, 2):
            sys.exit(f"schema: meshgen validate {path} failed ({r.returncode}): {r.stderr}")
        diags = [d for d in json.loads(r.stderr)["diagnostics"] if d["severity"] == "error"]
        if (r.returncode in (1, 2)) != bool(diags):
            sys.exit(f"schema: meshgen validate {path}: exit {r.returncode} with {diags}")
        # Errors in another file (the inventory a spec names) are not this file's.
        checks = {d["check"] for d in diags if d["file"] == os.path.basename(path)}
        if checks & UNJUDGED:
            skipped += 1
            return
        add_yaml(path, mgtest.read(path).decode("utf-8", "replace"), expectation(checks))

    for path in sorted(glob.glob(os.path.join(root, "tests/cases/*.yaml"))):
        text = mgtest.read(path).decode("utf-8", "replace")
        command = shlex.split(re.search(r"^# meshgen:[ \t]*(.*)$", text, re.M).group(1))
        if re.search(r"^# (no-file|exit: 2)", text, re.M) or "{file}" in command:
            skipped += 1
            continue
        options = []
        for i, a in enumerate(command):
            if a.startswith("--inventory="):
                options = [a]
            elif a == "--inventory" and i + 1 < len(command):
                options = [a, command[i + 1]]
        judge(path, options)

    for path in sorted(glob.glob(os.path.join(root, "tests/data/inventory/errors/*.yaml"))):
        judge(path, [])

    # A spec too large to keep as a fixture: one sharding past the limit.
    with mgtest.tempdir("schema") as tmp:
        path = mgtest.write(os.path.join(tmp, "shardings_count.yaml"),
                            "meshgen: 1\nname: many\nmesh: {axes: [dp], shape: [-1]}\nshardings:\n"
                            + "".join(f"  s{i}: [dp]\n" for i in range(4097)))
        judge(path, ["--inventory", mgtest.SMALL_INV])

    resolved = []
    meshes = sorted(glob.glob(os.path.join(root, "configs/meshes/*.yaml"))
                    + glob.glob(os.path.join(root, "configs/examples/*.yaml")))
    for path in meshes:
        r = mgtest.meshgen(meshgen, "resolve", path, text=True)
        if r.returncode != 0:
            sys.exit(f"schema: meshgen resolve {path} failed ({r.returncode}): {r.stderr}")
        resolved.append((f"resolve {os.path.relpath(path, root)}", json.loads(r.stdout)))
    for path in sorted(glob.glob(os.path.join(root, "tests/golden/*/expected/resolve.json"))):
        resolved.append((os.path.relpath(path, root), json.loads(mgtest.read(path))))
    for label, doc in resolved:
        add(label, "resolve", doc, True)
    base = next((r for r in resolved if r[1]["shardings"] and r[1]["mpmd"]), None)
    if base is None:
        sys.exit("schema: no resolve output with shardings and an MPMD axis to mutate")
    for label, doc, expected in resolve_variants(base[1]):
        add(f"{base[0]} {label}", "resolve", doc, expected)

    # Both validators read the instance from the same JSON text.
    verdicts = {"python3-jsonschema": {}, "ajv": {}}
    for schema in schemas:
        mine = [i for i, item in enumerate(items) if item[1] == schema]
        judged = mgtest.validate(root, node, schemas[schema],
                                 [(items[i][0], items[i][2]) for i in mine])
        for i, (py_ok, py_why, ajv_ok, ajv_said) in zip(mine, judged):
            verdicts["python3-jsonschema"][i] = (py_ok, py_why)
            if ajv_said != "no verdict":
                verdicts["ajv"][i] = (ajv_ok, ajv_said)

    fails = []
    for i, (label, schema, _, expected) in enumerate(items):
        both = {v: got[i][0] for v, got in verdicts.items() if i in got}
        if len(set(both.values())) > 1:
            fails.append(f"{label}: the validators disagree against {schema}.schema.json: "
                         + ", ".join(f"{v} {'accepts' if ok else 'rejects'}"
                                     for v, ok in both.items()))
        for validator, got in verdicts.items():
            if i not in got:
                fails.append(f"{label}: {validator} gave no verdict")
                continue
            ok, why = got[i]
            if expected is True and not ok:
                fails.append(f"{label}: {validator} rejects it against {schema}.schema.json, "
                             f"meshgen accepts it: {why}")
            elif expected is False and ok:
                fails.append(f"{label}: {validator} accepts it against {schema}.schema.json, "
                             "meshgen's structural checks (or the stable keys) reject it")
    for fail in fails:
        print("FAIL:", fail)
    counts = {s: sum(1 for it in items if it[1] == s) for s in schemas}
    print(f"schema: {len(items)} instances judged by python3-jsonschema and ajv "
          f"({', '.join(f'{n} {s}' for s, n in counts.items())}; "
          f"{sum(1 for it in items if it[3] is False)} must be rejected), {skipped} skipped, "
          f"{len(fails)} disagreements")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
