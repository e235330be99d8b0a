#!/usr/bin/env python3
"""Valid UTF-8 in every machine format whatever bytes the inputs hold
(docs/reference.md, "Echoed strings").

In a temporary directory (the repository need not hold such names), file
names, a --mesh string, a --name and a --host that are not UTF-8 (a Latin-1
0xE9, a lone 0xFF, a cut sequence, an overlong form) reach:
- `validate --format json` and `--format sarif`: the bytes are valid UTF-8,
  one document, and both python3-jsonschema and ajv accept it against
  schemas/diagnostics.schema.json and the SARIF 2.1.0 schema; a byte that
  is not UTF-8 is U+FFFD in a JSON string, and the SARIF URI keeps it
  exactly (%FF);
- `--format github`: valid UTF-8 (U+FFFD), one line per annotation;
- text: the byte as \\xff, one line;
- `show --svg` and `resolve` over an inventory XML named so (whose host is
  named after its file): a well-formed SVG, JSON valid against
  schemas/resolve.schema.json;
- `env --host` with such a name: its error, one line of UTF-8.

    utf8_formats.py ROOT MESHGEN NODE
"""
import json
import os
import sys
import xml.etree.ElementTree as ET

import mgtest

SARIF_SCHEMA = mgtest.SARIF_SCHEMA
INV = mgtest.SMALL_INV.encode()
BAD_NAME = b"meshgen: 1\nname: 2bad\nmesh: {axes: [dp], shape: [-1]}\n"
GOOD = b"meshgen: 1\nname: good\nmesh: {axes: [dp], shape: [-1]}\n"
# Byte strings that are not UTF-8, each in a file name.
NOT_UTF8 = [b"lat\xe9n", b"x\xff", b"cut\xc3", b"over\xc0\xaflong"]
T = mgtest.Checks("utf8_formats")
check = T.check


def run(meshgen, args, cwd, env=None):
    p = mgtest.meshgen(os.fsencode(meshgen), *args, cwd=cwd, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def utf8(label, data):
    """data decoded strictly, or None after a failure."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, f"{label}: not UTF-8 ({e}): {data[:200]!r}")
        return None


class Validators:
    """Both validators over raw output files, each schema's documents at
    once (mgtest.validate): each must be UTF-8, one JSON document, and valid
    to both."""

    def __init__(self, root, node):
        self.root, self.node, self.files = root, node, {}

    def add(self, schema, label, raw):
        self.files.setdefault(schema, []).append((label, raw))

    def judge(self):
        for schema, docs in self.files.items():
            verdicts = mgtest.validate(self.root, self.node, os.path.join(self.root, schema), docs)
            for (label, raw), (py_ok, py_why, ajv_ok, ajv_said) in zip(docs, verdicts):
                if utf8(label, raw) is None:
                    continue
                check(py_ok, f"{label}: python3-jsonschema: {py_why}")
                check(ajv_ok, f"{label}: ajv: {ajv_said}")


def test_diagnostics(meshgen, tmp, v):
    for raw in NOT_UTF8:
        name = raw + b".yaml"
        mgtest.write(os.path.join(os.fsencode(tmp), name), BAD_NAME)
        for fmt in (b"json", b"sarif"):
            code, _, err = run(meshgen, [b"validate", b"--format", fmt, b"--inventory", INV, name],
                               tmp)
            label = f"validate --format {fmt.decode()} {name!r}"
            check(code == 1, f"{label}: exit {code}")
            v.add("schemas/diagnostics.schema.json" if fmt == b"json" else SARIF_SCHEMA, label,
                  err)
            text = utf8(label, err)
            if text and fmt == b"json":
                files = [d["file"] for d in json.loads(text)["diagnostics"]]
                want = name.decode("utf-8", "replace")
                check(files == [want], f"{label}: file {files!r}, expected {want!r}")
            elif text:
                uri = json.loads(text)["runs"][0]["results"][0]["locations"][0][
                    "physicalLocation"]["artifactLocation"]["uri"]
                want = "".join(chr(c) if c < 128 and (chr(c).isalnum() or chr(c) in "-._~") else f"%{c:02X}"
                               for c in name)
                check(uri == want, f"{label}: uri {uri!r}, expected {want!r}")
        code, _, err = run(meshgen, [b"validate", b"--format", b"github", b"--inventory", INV,
                                     name], tmp)
        text = utf8(f"github {name!r}", err)
        check(code == 1 and text is not None and len(text.splitlines()) == 1
              and "\ufffd" in text, f"github {name!r}: exit {code}, {err!r}")
        code, _, err = run(meshgen, [b"validate", b"--inventory", INV, name], tmp)
        text = utf8(f"text {name!r}", err)
        check(code == 1 and text is not None and len(text.splitlines()) == 1
              and "\\x" in text.split(":")[0], f"text {name!r}: exit {code}, {err!r}")
    # Values echoed in messages: --mesh, --name, a missing --inventory.
    for args in ([b"--mesh", b"\xff:2", b"--inventory", INV],
                 [b"--mesh", b"dp:2", b"--name", b"n\xe9", b"--inventory", INV],
                 [b"--mesh", b"dp:2", b"--inventory", b"no\xff.xml"]):
        for fmt in (b"json", b"sarif"):
            code, _, err = run(meshgen, [b"validate", b"--format", fmt] + args, tmp)
            label = f"validate --format {fmt.decode()} {args!r}"
            check(code in (1, 2) and err, f"{label}: exit {code}, {err[:200]!r}")
            v.add("schemas/diagnostics.schema.json" if fmt == b"json" else SARIF_SCHEMA, label,
                  err)


def test_outputs(root, meshgen, tmp, v):
    """An inventory file whose name is not UTF-8: the SVG, resolve and env.
    The topology names its host (a file name that is no host name is
    refused, docs/reference.md "Host names"), so the odd bytes are the
    path's alone."""
    xml = b"h\xff.xml"
    mgtest.write(os.path.join(os.fsencode(tmp), xml), mgtest.named_topology("h1"))
    mgtest.write(os.path.join(tmp, "good.yaml"), GOOD)
    code, _, err = run(meshgen, [b"show", b"--color=never", b"--svg", b"g.svg", b"--inventory",
                                 xml, b"good.yaml"], tmp)
    check(code == 0, f"show --svg over {xml!r}: exit {code}, {err!r}")
    if code == 0:
        svg = mgtest.read(os.path.join(tmp, "g.svg"))
        try:
            ET.fromstring(svg)
        except ET.ParseError as e:
            check(False, f"show --svg over {xml!r}: not well-formed XML ({e})")
        utf8("svg", svg)
    code, out, err = run(meshgen, [b"resolve", b"--inventory", xml, b"good.yaml"], tmp)
    check(code == 0, f"resolve over {xml!r}: exit {code}, {err!r}")
    v.add("schemas/resolve.schema.json", f"resolve over {xml!r}", out)
    # env echoes this machine's name, which may come from the environment.
    env = mgtest.env_with(MESHGEN_HOSTNAME="x")
    code, out, err = run(meshgen, [b"env", b"--inventory", xml, b"--host", b"n\xffo",
                                   b"good.yaml"], tmp, env)
    text = utf8("env --host n\\xffo", err)
    check(code == 1 and text is not None and "'n\\xffo'" in text and len(text.splitlines()) == 1,
          f"env --host n\\xffo: exit {code}, {err!r}")


def main():
    root, meshgen, node = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    if not os.path.exists(os.path.join(root, SARIF_SCHEMA)):
        sys.exit(f"utf8_formats: no {SARIF_SCHEMA}: run scripts/setup-deps.sh (npm ci)")
    with mgtest.tempdir("utf8") as tmp:
        v = Validators(root, node)
        test_diagnostics(meshgen, tmp, v)
        test_outputs(root, meshgen, tmp, v)
        v.judge()
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
