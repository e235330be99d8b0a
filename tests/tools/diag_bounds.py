#!/usr/bin/env python3
"""Diagnostics that stay readable and cannot be forged (docs/reference.md,
"Checks"):

- every string a message echoes is cut past 200 bytes with "...": a 10 MB
  mesh name, a 10 MB axis name with spaces and newlines, a 1 MB hostlist
  each give a diagnostic line of a few hundred bytes;
- a file name with a newline and a GitHub workflow command in it neither
  splits a diagnostic nor starts a line of its own, in text, JSON and
  GitHub formats; JSON gives the name back exactly;
- names of a spec holding ESC [, a C1 control (U+009B), U+2028, a newline
  and a long tail (tests/cases/hostile_names.yaml) are quoted, escaped and
  cut past 40 bytes in every message that echoes them, in text, GitHub,
  JSON and SARIF: no message holds a control character or grows past 300
  bytes, and each document is valid UTF-8 (JSON and SARIF parse).

    diag_bounds.py MESHGEN
"""
import json
import os
import re
import sys

import mgtest

INV = mgtest.INV
LINE_MAX = 700  # a message of 480 bytes (its head and tail), some escaped; the location


def validate(meshgen, d, *args):
    return mgtest.meshgen(meshgen, "validate", *args, cwd=d, timeout=120)


CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def hostile_formats(meshgen, fail):
    """Every message about hostile_names.yaml, in every format."""
    cases = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases")
    for fmt in ("text", "github", "json", "sarif"):
        p = validate(meshgen, cases, "--inventory", INV, "--format", fmt, "hostile_names.yaml")
        try:
            out = p.stderr.decode("utf-8")
        except UnicodeDecodeError as e:
            fail(f"hostile names, {fmt}: not UTF-8 ({e})")
            continue
        if fmt == "json":
            messages = [g["message"] for g in json.loads(out)["diagnostics"]]
        elif fmt == "sarif":
            messages = [r["message"]["text"] for r in json.loads(out)["runs"][0]["results"]]
        else:
            messages = [ln for ln in out.split("\n") if "error" in ln]
        bad = [m for m in messages if CONTROL.search(m) or len(m) > 300 or "...'" not in m]
        if p.returncode != 1 or len(messages) < 14 or bad:
            fail(f"hostile names, {fmt}: exit {p.returncode}, {len(messages)} messages, "
                 f"these raw or long: {bad[:2]!r}")


def main():
    meshgen = os.path.abspath(sys.argv[1])
    t = mgtest.Checks("diag_bounds")
    fail = t.fail
    with mgtest.tempdir("diag-bounds") as d:
        def write(name, text):
            mgtest.write(os.path.join(d, name), text)

        big = "a" * 10_000_000
        write("long-name.yaml", f"meshgen: 1\nname: {big}\nmesh: {{axes: [dp], shape: [-1]}}\n")
        spaced = ("x y\\n" * 2_500_000)
        write("long-axis.yaml", f'meshgen: 1\nname: ok\nmesh: {{axes: ["{spaced}"], shape: [-1]}}\n')
        write("long-host.yaml", "meshgen-inventory: 1\nhosts:\n  - names: "
              + "h" * 1_000_000 + "[1-\n    synthetic: \"pack:1 core:2 pu:1\"\n")
        for name, check, want in (
                ("long-name.yaml", "name-identifier", "aaa...' is 10000000 characters long"),
                ("long-axis.yaml", "axis-name-identifier", "x y\\nx y"),
                ("long-host.yaml", "hostlist", "...")):
            p = validate(meshgen, d, "--inventory", INV, name)
            lines = p.stderr.decode("utf-8", "replace").splitlines()
            hit = [ln for ln in lines if f"[{check}]" in ln]
            if p.returncode != 1 or not hit:
                fail(f"{name}: exit {p.returncode}, no [{check}]: {p.stderr[:300]!r}")
                continue
            if max(len(ln) for ln in lines) > LINE_MAX or "..." not in hit[0] or want not in hit[0]:
                fail(f"{name}: a diagnostic of {max(len(ln) for ln in lines)} bytes, "
                             f"expected at most {LINE_MAX} with '...': {hit[0][:300]!r}")

        # A file name that tries to split a diagnostic and inject a command.
        evil = "evil\n::error file=x::pwned\r.yaml"
        write(evil, "meshgen: 1\nname: 2bad\nmesh: {axes: [dp], shape: [-1]}\n")
        for fmt in ("text", "github", "json", "sarif"):
            p = validate(meshgen, d, "--inventory", INV, "--format", fmt, evil)
            out = p.stderr.decode("utf-8", "replace")
            lines = out.splitlines()
            if p.returncode != 1:
                fail(f"{fmt}: exit {p.returncode}, expected 1")
            elif fmt == "json":
                diags = json.loads(out)["diagnostics"]
                if len(diags) != 1 or diags[0]["file"] != evil:
                    fail(f"json: the file name did not come back exactly: {diags}")
            elif fmt == "sarif":
                results = json.loads(out)["runs"][0]["results"]
                uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                        for r in results]
                if uris != ["evil%0A%3A%3Aerror%20file%3Dx%3A%3Apwned%0D.yaml"]:
                    fail(f"sarif: the file name is not one percent-encoded URI: {uris}")
            elif len(lines) != 1 or lines[0].count("[name-identifier]" if fmt == "text"
                                                   else "title=name-identifier") != 1:
                fail(f"{fmt}: the diagnostic was split into {len(lines)} lines: {lines}")
            elif any(ln.startswith("::error file=x") for ln in lines) or \
                    (fmt == "text" and any(ln.startswith("::") for ln in lines)):
                fail(f"{fmt}: a workflow command was injected: {lines}")
        hostile_formats(meshgen, fail)
        # Usage errors echo the command line the same way.
        for args, want in (([evil], "unknown command 'evil\\n::error file=x::pwned\\r"),
                           (["resolve", "--format", "x" * 100_000], "x" * 200 + "..."),
                           (["resolve", "--" + "y" * 1000], "--" + "y" * 198 + "...'"),
                           (["resolve", "--format", "a" + "\u00e9" * 150],
                            "not 'a" + "\u00e9" * 99 + "...'"),
                           (["env", "--process", evil], "not 'evil\\n::error"),
                           (["resolve", "--mesh", "dp:2", evil], "(got 'evil\\n::error"),
                           (["show", "a.yaml", "z" * 1000], "(got '" + "z" * 200 + "...'"),
                           (["env", "x.yaml", "--process", "1\n::error file=x::pwned"],
                            "not '1\\n::error file=x::pwned'"),
                           (["env", "x.yaml", "--local-rank", "9" * 100_000], "9" * 200 + "...")):
            p = mgtest.meshgen(meshgen, *args, timeout=60)
            try:  # cut at a character, as diagnostics are: UTF-8 in, UTF-8 out
                err = p.stderr.decode("utf-8")
            except UnicodeDecodeError as e:
                fail(f"usage error for {args[0][:20]!r}...: not UTF-8 ({e})")
                continue
            if p.returncode != 2 or want not in err or any(
                    ln.startswith("::") for ln in err.splitlines()) or len(err) > 4000:
                fail(f"usage error for {args[0][:20]!r}...: exit {p.returncode}, "
                             f"{err[:300]!r}")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
