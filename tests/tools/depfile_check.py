#!/usr/bin/env python3
"""Depfiles that GNU Make and Ninja read back as meshgen meant them
(docs/reference.md, "Files and streams").

For each file name below, a tiny project in a temporary directory runs
`meshgen generate NAME --depfile ...` from a Makefile and from a
build.ninja: the first build generates, a second does nothing, and after the
input (the spec, or the inventory XML it names) is touched a third build
generates again. So a name is right only if the tool read the very file back
from the depfile: a name it splits or misreads never triggers the rebuild
(Make stops at a missing prerequisite, Ninja rebuilds every time).

Names a Make rule cannot hold are refused, exit 2, located at --depfile,
and nothing is written: a newline followed by a rule whose recipe would
create a file (the recipe must never run, under Make or Ninja), a tab, a
carriage return, ';', '=', '|', a final backslash, and '%' in a target.
Names are made here, in the temporary directory, as the repository cannot
hold some of them.

    depfile_check.py MESHGEN
"""
import os
import shutil
import sys
import time

import mgtest

INV = mgtest.SMALL_INV
SPEC = "meshgen: 1\nname: m\nmesh: {axes: [dp], shape: [-1]}\n"
T = mgtest.Checks("depfile_check")
check = T.check

# Each character Make or Ninja reads specially, and neighbours of it.
NAMES = ["sp ace.yaml", "ha#sh.yaml", "dol$lar.yaml", "$(shell touch PWNED).yaml",
         "co:lon.yaml", "a: b.yaml", "pct%.yaml", "back\\slash.yaml", "bs\\ sp.yaml",
         "br[x].yaml", "caf\u00e9.yaml", b"lat\xe9.yaml", "~tilde.yaml", "ex!at@pl+us,.yaml"]


def touch_later(path):
    """Move path's mtime well past anything a build wrote."""
    t = time.time() + 10
    os.utime(path, (t, t))


def make_project(d, meshgen, spec, inv, out):
    """A Makefile and a build.ninja whose recipe is the generate command.
    The names travel in the environment, so no tool quotes them but the
    depfile."""
    cmd = '"$$MESHGEN" generate "$$SPEC" --inventory "$$INV" -o "$$OUT" --depfile "$$OUT/m.d"'
    mk_out = out.replace(" ", "\\ ")
    mgtest.write(os.path.join(d, "Makefile"),
                 f"{mk_out}/m_mesh.c:\n\t{cmd}\n-include {mk_out}/m.d\n")
    nj_out = out.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")
    mgtest.write(os.path.join(d, "build.ninja"),
                 f"rule gen\n  command = {cmd}\n  depfile = {nj_out}/m.d\n  deps = gcc\n"
                 f"build {nj_out}/m_mesh.c {nj_out}/m_mesh.h: gen\n")
    env = mgtest.env_with(MESHGEN=meshgen, SPEC=spec, INV=inv, OUT=out)
    env = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
    return env


def build(tool, d, env):
    """(exit code, whether the generator ran, output)."""
    args = ["make", "--no-print-directory", "-f", "Makefile"] if tool == "make" else ["ninja"]
    if tool == "make":
        args.append(env[b"OUT"] + b"/m_mesh.c")
    p = mgtest.run(args, cwd=d, env=env, timeout=120)
    text = (p.stdout + p.stderr).decode("utf-8", "replace")
    ran = "generate" in text if tool == "make" else "no work to do" not in text
    return p.returncode, ran, text


def round_trip(meshgen, tool, name, where):
    """Build, build again, touch the input named `name`, build again."""
    with mgtest.tempdir("depfile") as d:
        d = os.fsencode(d)
        raw = os.fsencode(name)
        label = f"{tool} {where} {name!r}"
        spec, inv, out, touched = b"m.yaml", INV.encode(), "out", None
        if where == "spec":
            spec, touched = raw, raw
        elif where == "inventory":
            # The topology names its host, so the odd name is the path's alone.
            mgtest.write(os.path.join(d, raw), mgtest.named_topology("n1"))
            inv, touched = raw, raw
        else:  # the output directory: the depfile's targets
            out = name
            touched = spec
        mgtest.write(os.path.join(d, spec), SPEC)
        os.mkdir(os.path.join(d, os.fsencode(out)))
        env = make_project(os.fsdecode(d), meshgen, os.fsdecode(spec), os.fsdecode(inv), out)
        env[b"SPEC"], env[b"INV"] = spec, inv
        code1, ran1, t1 = build(tool, d, env)
        code2, ran2, t2 = build(tool, d, env)
        time.sleep(0.01)
        touch_later(os.path.join(d, touched))
        code3, ran3, t3 = build(tool, d, env)
        check(code1 == code2 == code3 == 0 and ran1 and not ran2 and ran3,
              f"{label}: builds exit {code1}/{code2}/{code3}, generated {ran1}/{ran2}/{ran3} "
              f"(expected yes/no/yes): {(t1 + t2 + t3)[-600:]!r}")
        check(not os.path.exists(os.path.join(d, b"PWNED")), f"{label}: a recipe was injected")


def refused(meshgen, name, where):
    """generate --depfile with this name: exit 2 at --depfile, nothing
    written, and neither Make nor Ninja runs an injected recipe."""
    with mgtest.tempdir("depfile") as d:
        raw = os.fsencode(name)
        spec, out = b"m.yaml", b"out"
        if where == "spec":
            spec = raw
        else:
            out = raw
        mgtest.write(os.path.join(os.fsencode(d), spec), SPEC)
        os.mkdir(os.path.join(os.fsencode(d), out))
        p = mgtest.meshgen(os.fsencode(meshgen), b"generate", spec, b"--inventory", INV.encode(),
                           b"-o", out, b"--depfile", b"m.d", cwd=d, timeout=60)
        err = p.stderr.decode("utf-8", "replace")
        lines = err.splitlines()
        left = sorted(os.listdir(os.path.join(os.fsencode(d), out)))
        check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("--depfile: error: ")
              and "in a Make rule: it holds" in lines[0] and lines[0].endswith("[io]")
              and not os.path.exists(os.path.join(d, "m.d")) and not left,
              f"refused {where} {name!r}: exit {p.returncode}, wrote {left}, stderr {err!r}")
        # Whatever a depfile would have said, no tool may run it: a Makefile
        # that includes it and a Ninja rule that reads it.
        mgtest.write(os.path.join(d, "Makefile"), "all:\n\t@true\n-include m.d\n")
        mgtest.run(["make", "-s"], cwd=d, timeout=60)
        check(not os.path.exists(os.path.join(d, "PWNED")),
              f"refused {where} {name!r}: Make ran an injected recipe")


def main():
    meshgen = os.path.abspath(sys.argv[1])
    for tool in ("make", "ninja"):
        if not shutil.which(tool):
            sys.exit(f"depfile_check: {tool} is not installed")
    for name in NAMES:
        text = name if isinstance(name, str) else os.fsdecode(name)
        for tool in ("make", "ninja"):
            round_trip(meshgen, tool, text, "spec")
    for name in ("inv sp#ace$:.xml", "caf\u00e9 1.xml"):
        for tool in ("make", "ninja"):
            round_trip(meshgen, tool, name, "inventory")
    # A target: -o names a directory with a space.
    for tool in ("make", "ninja"):
        round_trip(meshgen, tool, "o u t", "output")
    for name in ("evil\nall:;>PWNED\nz:", "ta\tb.yaml", "cr\rx.yaml",
                 "semi;>PWNED", "SHELL=x.yaml", "pi|pe.yaml", "bsend\\"):
        refused(meshgen, name, "spec")
    refused(meshgen, "pct%", "output")
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
