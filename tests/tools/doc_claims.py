#!/usr/bin/env python3
"""The examples docs/reference.md gives of what meshgen does, run.

usage: doc_claims.py MESHGEN SOURCE_DIR

- Hostlists (§2, "Hostlists"): every "`HOSTLIST` is NAME, NAME, ..." of the
  section is expanded by meshgen (an inventory of one host group with that
  `names:`, resolved) and must give exactly those names in that order, and
  "`A`, `B` and `C` are the same two hosts" must hold for each form. At
  least the examples of padding, written order, two groups and three groups
  (Slurm's order) must be there.
- The resolve JSON (§7): the example "the sharding `NAME: SPEC` of the mesh
  `MESH` resolves to `JSON`" is resolved and compared key by key; and
  schemas/resolve.schema.json's description of a sharding's `spec` says
  size-1 axes are kept, as the example shows, not left out.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import mgtest

CHECKS = mgtest.Checks("doc claims")
check = CHECKS.check


def section(text, start, end):
    """From start to end; empty (and a failure) when start is missing."""
    i = text.find(start)
    check(i >= 0, f"docs/reference.md has {start!r}")
    if i < 0:
        return ""
    j = text.find(end, i + len(start))
    return text[i:j if j >= 0 else len(text)]


def resolve(meshgen, tmp, spec, inventory):
    with open(os.path.join(tmp, "inv.yaml"), "w") as f:
        f.write(inventory)
    with open(os.path.join(tmp, "spec.yaml"), "w") as f:
        f.write(spec)
    p = subprocess.run([meshgen, "resolve", "spec.yaml"], cwd=tmp, capture_output=True,
                       text=True)
    if p.returncode != 0:
        return None, p.stderr
    return json.loads(p.stdout), ""


def expand(meshgen, tmp, hostlist):
    """The host names meshgen makes of hostlist, in order."""
    inv = ("meshgen-inventory: 1\nhosts:\n  - names: " + json.dumps(hostlist)
           + '\n    synthetic: "pack:1 core:1 pu:1"\n')
    spec = "meshgen: 1\nname: h\ninventory: inv.yaml\nmesh:\n  axes: [dp]\n  shape: [-1]\n"
    doc, err = resolve(meshgen, tmp, spec, inv)
    return [h["name"] for h in doc["hosts"]] if doc else err.strip()


def hostlists(meshgen, tmp, doc):
    text = re.sub(r"\s+", " ", section(doc, "**Hostlists.**", "\n\n**"))
    examples = re.findall(r"`([^`]+)` is ((?:[A-Za-z0-9._-]+, )+[A-Za-z0-9._-]+)", text)
    want = {"n[08-10]", "n[10,2,1]", "b[1-2]c[3-4]", "n[1-2]x[1-2]y[1-2]"}
    shown = {h for h, _ in examples}
    check(want <= shown, f"§2 Hostlists expands {sorted(want)} by example: {sorted(shown)}")
    for hostlist, names in examples:
        names = names.split(", ")
        got = expand(meshgen, tmp, hostlist)
        check(got == names, f"§2: `{hostlist}` is {', '.join(names)}: meshgen gives {got}")
    same = re.findall(r"((?:`[^`]+`, )+`[^`]+` and `[^`]+`) are the same two hosts", text)
    check(bool(same), "§2 Hostlists names forms that are the same two hosts")
    for group in same:
        forms = re.findall(r"`([^`]+)`", group)
        got = [expand(meshgen, tmp, f) for f in forms]
        check(all(g == got[0] and len(g) == 2 for g in got),
              f"§2: {forms} are the same two hosts: meshgen gives {got}")


def resolve_json(meshgen, tmp, doc, source):
    text = re.sub(r"\s+", " ", section(doc, "## 7. The resolve JSON", "## 8. "))
    m = re.search(r"the sharding `(\w+): ([^`]+)` of the mesh `([^`]+)` resolves to `([^`]+)`",
                  text)
    check(m is not None, "§7 gives an example of a sharding's resolved `spec`")
    if m:
        name, spec, mesh, want = m.groups()
        axes = [a.split(":") for a in mesh.split(",")]
        devices = 1
        for _, size in axes:
            devices *= int(size)
        yaml = (f"meshgen: 1\nname: s\ninventory: inv.yaml\nmesh:\n"
                f"  axes: [{', '.join(a for a, _ in axes)}]\n"
                f"  shape: [{', '.join(s for _, s in axes)}]\nshardings:\n  {name}: {spec}\n")
        inv = (f'meshgen-inventory: 1\nhosts:\n  - names: n1\n'
               f'    synthetic: "pack:1 core:{devices} pu:1"\n')
        out, err = resolve(meshgen, tmp, yaml, inv)
        got = {name: {k: out["shardings"][name][k] for k in ("spec", "shards")}} if out else err
        check(got == json.loads(want), f"§7: `{name}: {spec}` over {mesh} resolves to {want}: "
                                       f"meshgen gives {json.dumps(got)}")
    schema = json.load(open(os.path.join(source, "schemas", "resolve.schema.json")))
    desc = schema["properties"]["shardings"]["additionalProperties"]["properties"]["spec"][
        "description"]
    check("size 1 is kept" in desc and "left out" not in desc,
          f"resolve.schema.json: a sharding's spec keeps size-1 axes: {desc!r}")


def main():
    meshgen, source = os.path.abspath(sys.argv[1]), sys.argv[2]
    doc = open(os.path.join(source, "docs", "reference.md"), encoding="utf-8").read()
    with tempfile.TemporaryDirectory() as tmp:
        hostlists(meshgen, tmp, doc)
        resolve_json(meshgen, tmp, doc, source)
    CHECKS.exit()


if __name__ == "__main__":
    main()
