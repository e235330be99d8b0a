#!/usr/bin/env python3
"""The machine-readable diagnostic formats of one meshgen run.

- `--format json` prints ONE document per run, whatever the number of files:
  every file's diagnostics, their notes, the counts and the exit status, valid
  against schemas/diagnostics.schema.json for python3-jsonschema and for ajv
  (tools/npm/validate.js); the "N more not shown" count of a file past the cap
  of 50 is in it; a clean run prints an empty list.
- `--format github` prints notes as ::notice commands, and escapes %, CR and
  LF in messages and also ':' and ',' in properties (GitHub's rules).
- `--format sarif` prints one SARIF 2.1.0 log that the official schema
  (sarif-schema 2.1.0, shipped by the pinned npm package @microsoft/jest-sarif)
  accepts, for ajv (draft-04, formats checked) and python3-jsonschema alike:
  every check of the registry as a rule, once, with its doc and level; one
  result per diagnostic, with its rule, location and notes as related
  locations. A broken copy of the log must be refused by both, so the
  validation is known to be able to fail.

    diag_formats.py ROOT MESHGEN NODE
"""
import copy
import json
import os
import sys

import mgtest

INVENTORY = ["--inventory", mgtest.INV]
T = mgtest.Checks("diag_formats")
check = T.check


def meshgen(exe, args, cwd):
    r = mgtest.meshgen(exe, *args, cwd=cwd, text=True)
    return r.returncode, r.stdout, r.stderr


def validators(root, node, schema_path, docs):
    """{label: (python3-jsonschema valid, ajv valid)} of each doc."""
    labels = list(docs)
    verdicts = mgtest.validate(root, node, schema_path,
                               [(label, json.dumps(docs[label])) for label in labels])
    out = {}
    for label, (py_ok, py_why, ajv_ok, ajv_said) in zip(labels, verdicts):
        out[label] = (py_ok, ajv_ok)
        print(f"{label}: python3-jsonschema {'valid' if py_ok else py_why}, ajv {ajv_said}")
    return out


def write_specs(tmp):
    """Specs with a note, a '%' in a message, an awkward file name, many errors."""
    specs = {
        "twice.yaml": "meshgen: 1\nname: twice\nmesh:\n  axes: [tp, dp, tp]\n"
                      "  shape: [2, 2, 2]\n",
        "a,b:c%.yaml": "meshgen: 1\nname: odd\nmesh:\n  axes: [d%p]\n  shape: [-1]\n",
        "clean one.yaml": "meshgen: 1\nname: clean\nmesh:\n  axes: [dp]\n  shape: [-1]\n",
        "many.yaml": "meshgen: 1\nname: many\nmesh:\n  axes: [dp]\n  shape: [-1]\n"
                     + "".join(f"unknown_{i}: 1\n" for i in range(60)),
    }
    for name, text in specs.items():
        mgtest.write(os.path.join(tmp, name), text)
    return list(specs)


def test_json(root, exe, node, tmp, files):
    code, _, err = meshgen(exe, ["validate", "--format", "json"] + INVENTORY + files, tmp)
    try:
        doc = json.loads(err)  # one document: json.loads refuses "[...][...]"
    except json.JSONDecodeError as e:
        check(False, f"json: stderr of {len(files)} files is not one JSON document: {e}")
        return None
    diags = doc["diagnostics"]
    check(code == 1 and doc["exit"] == 1, f"json: exit {code}, document says {doc['exit']}")
    check({d["file"] for d in diags} == {"twice.yaml", "a,b:c%.yaml", "many.yaml"},
          f"json: files {sorted({d['file'] for d in diags})}")
    twice = [d for d in diags if d["file"] == "twice.yaml"]
    check(len(twice) == 1 and twice[0]["notes"] == [
        {"file": "twice.yaml", "line": 4, "column": 10, "message": "first defined here"}],
        f"json: the note of twice.yaml: {twice}")
    many = [d for d in diags if d["file"] == "many.yaml"]
    check(len(many) == 50 and doc["not_shown"] == 10,
          f"json: many.yaml shows {len(many)}, not_shown {doc['not_shown']} (want 50, 10)")
    check(doc["errors"] == len(diags), f"json: errors {doc['errors']} of {len(diags)}")
    _, _, clean = meshgen(exe, ["validate", "--format", "json"] + INVENTORY
                          + ["clean one.yaml"], tmp)
    clean = json.loads(clean)
    check(clean["diagnostics"] == [] and clean["exit"] == 0, f"json: clean run: {clean}")
    # An output that cannot be written is an "io" diagnostic inside the
    # document (exit 2), not a line of text beside it.
    code, _, unwritten = meshgen(exe, ["show", "--format", "json", "--svg", "no/such/dir/x.svg"]
                                 + INVENTORY + ["clean one.yaml"], tmp)
    try:
        unwritten = json.loads(unwritten)
        io = unwritten["diagnostics"]
        check(code == 2 and unwritten["exit"] == 2 and len(io) == 1 and io[0]["check"] == "io"
              and io[0]["file"] is None and "cannot write" in io[0]["message"],
              f"json: an SVG that cannot be written: exit {code}, {io}")
    except json.JSONDecodeError as e:
        check(False, f"json: an SVG that cannot be written leaves no one document: {e}")
        unwritten = {}
    schema = os.path.join(root, "schemas/diagnostics.schema.json")
    broken = copy.deepcopy(doc)
    broken["diagnostics"][0]["line"] = "nine"
    verdicts = validators(root, node, schema, {"json: several files": doc,
                                               "json: a clean run": clean,
                                               "json: an output not written": unwritten,
                                               "json: a broken copy": broken})
    check(verdicts["json: several files"] == (True, True), "json: several files are not valid")
    check(verdicts["json: a clean run"] == (True, True), "json: a clean run is not valid")
    check(verdicts["json: an output not written"] == (True, True),
          "json: a run with an output not written is not valid")
    check(verdicts["json: a broken copy"] == (False, False), "json: a broken copy is valid")
    return doc


def test_github(exe, tmp):
    _, _, err = meshgen(exe, ["validate", "--format", "github"] + INVENTORY
                        + ["twice.yaml", "a,b:c%.yaml", "many.yaml"], tmp)
    lines = err.splitlines()
    want = [
        "::error file=twice.yaml,line=4,col=18,title=axis-name-unique::axis 'tp' appears twice",
        "::notice file=twice.yaml,line=4,col=10,title=axis-name-unique::first defined here",
        "::notice title=meshgen::10 more diagnostics not shown",
    ]
    for w in want:
        check(w in lines, f"github: no line {w!r}")
    odd = [line for line in lines if "a%2Cb%3Ac%25.yaml" in line]
    check(len(odd) == 1 and "'d%25p'" in odd[0] and odd[0].startswith("::error "),
          f"github: the file name and message of a,b:c%.yaml escaped: {odd}")
    check(all(line.startswith("::") for line in lines), "github: a line that is no command")


def test_sarif(root, exe, node, tmp, files, json_doc):
    code, _, err = meshgen(exe, ["validate", "--format", "sarif"] + INVENTORY + files, tmp)
    log = json.loads(err)
    run = log["runs"][0]
    results, rules = run["results"], run["tool"]["driver"]["rules"]
    check(code == 1 and run["invocations"][0]["exitCode"] == 1, f"sarif: exit {code}")
    if json_doc is not None:
        check(len(results) == len(json_doc["diagnostics"]),
              f"sarif: {len(results)} results for {len(json_doc['diagnostics'])} diagnostics")
        for d, r in zip(json_doc["diagnostics"], results):
            region = r["locations"][0]["physicalLocation"]["region"]
            check(r["ruleId"] == d["check"] and rules[r["ruleIndex"]]["id"] == d["check"]
                  and (region["startLine"], region["startColumn"]) == (d["line"], d["column"]),
                  f"sarif: result {r} for {d}")
    ids = [rule["id"] for rule in rules]
    check(len(ids) == len(set(ids)) >= 50 and all(
        rule["shortDescription"]["text"] and rule["defaultConfiguration"]["level"]
        in ("error", "warning", "note") for rule in rules),
        f"sarif: the rules are not the registry's checks, each once with its doc and level: {ids}")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    check(uris == {"twice.yaml", "a%2Cb%3Ac%25.yaml", "many.yaml"}, f"sarif: uris {uris}")
    related = [r for r in results if "relatedLocations" in r]
    check(len(related) == 1 and related[0]["relatedLocations"][0]["message"]["text"]
          == "first defined here", f"sarif: related locations {related}")
    notes = run["invocations"][0].get("toolExecutionNotifications", [])
    check(len(notes) == 1 and notes[0]["message"]["text"] == "10 more diagnostics not shown",
          f"sarif: the not-shown count {notes}")
    # An error that is in an option, not in a file: no location.
    code, _, mesh_err = meshgen(exe, ["validate", "--format", "sarif", "--mesh", "dp:0"]
                                + INVENTORY, tmp)
    mesh_log = json.loads(mesh_err)
    mesh_results = mesh_log["runs"][0]["results"]
    check(code == 1 and len(mesh_results) == 1 and "locations" not in mesh_results[0]
          and mesh_results[0]["message"]["text"].startswith("--mesh: "),
          f"sarif: --mesh error {mesh_results}")
    _, _, clean = meshgen(exe, ["validate", "--format", "sarif"] + INVENTORY
                          + ["clean one.yaml"], tmp)
    clean = json.loads(clean)
    code, _, nodir = meshgen(exe, ["generate", "--format", "sarif", "-o", "no/such/dir"]
                             + INVENTORY + ["clean one.yaml"], tmp)
    nodir = json.loads(nodir)
    inv = nodir["runs"][0]["invocations"][0]
    io = nodir["runs"][0]["results"]
    check(code == 2 and inv == {"executionSuccessful": False, "exitCode": 2} and len(io) == 1
          and io[0]["ruleId"] == "io" and "locations" not in io[0],
          f"sarif: generate into a missing directory: exit {code}, {inv}, {io}")
    broken = copy.deepcopy(log)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    docs = {"sarif: several files": log, "sarif: --mesh": mesh_log,
            "sarif: a clean run": clean, "sarif: no output directory": nodir,
            "sarif: a broken copy": broken}
    verdicts = validators(root, node, os.path.join(root, mgtest.SARIF_SCHEMA), docs)
    for label, verdict in verdicts.items():
        want = (False, False) if "broken" in label else (True, True)
        check(verdict == want, f"{label}: (python3-jsonschema, ajv) say {verdict}, want {want}")


def main():
    root, exe, node = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    if not os.path.exists(os.path.join(root, mgtest.SARIF_SCHEMA)):
        sys.exit(f"diag_formats: no {mgtest.SARIF_SCHEMA}: run scripts/setup-deps.sh (npm ci)")
    with mgtest.tempdir("diag-formats") as tmp:
        files = write_specs(tmp)
        doc = test_json(root, exe, node, tmp, files)
        test_github(exe, tmp)
        test_sarif(root, exe, node, tmp, files, doc)
    T.exit()


if __name__ == "__main__":
    main()
