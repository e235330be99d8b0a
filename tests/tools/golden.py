#!/usr/bin/env python3
"""Golden test of generated output for one spec.

A golden directory holds spec.yaml, an optional `args` file (extra command
line, e.g. --inventory ...) and expected/: <name>_mesh.h, <name>_mesh.c and
resolve.json. The test generates into a temporary directory and compares
bytes; with MESHGEN_UPDATE_GOLDEN=1 it rewrites expected/ instead.

It also checks what golden files alone cannot:
- the placement: an optional `mesh.json` beside spec.yaml holds the mesh
  (flat index -> device id) worked out by hand from docs/reference.md's
  rules, never written by the update mode; resolve's "mesh" must equal it
  and, as such a golden exists to pin a placement, must not be the
  identity;
- reproducibility: a second run from another working directory, with the
  spec given as an absolute path, another time zone, locale and umask,
  gives the same bytes;
- the generated C compiles with -std=c11 -Wall -Wextra -Wpedantic -Werror
  under every compiler given with --cc; a compiler that was not found
  (empty, or CMake's *-NOTFOUND) fails the test rather than skipping it.
"""
import argparse
import json
import os
import shlex
import sys

import mgtest


def run(cmd, cwd, env=None):
    p = mgtest.run(cmd, cwd=cwd, env=env, timeout=120)
    if p.returncode != 0:
        mgtest.die(f"{' '.join(cmd)} exited {p.returncode}\n{p.stderr.decode()}")
    return p.stdout


def generate(meshgen, gdir, spec_arg, extra, out, cwd, env=None):
    run([meshgen, "generate", spec_arg, "-o", out] + extra, cwd, env)
    return mgtest.snapshot(out)


def check_mesh(gdir, resolve_json):
    """resolve's mesh against mesh.json, the placement worked out by hand."""
    path = os.path.join(gdir, "mesh.json")
    if not os.path.exists(path):
        return
    want = json.loads(mgtest.read(path))
    got = json.loads(resolve_json)["mesh"]
    if got != want:
        mgtest.die(f"the mesh is {got}, mesh.json (from docs/reference.md's rules) says {want}")
    if want == sorted(want):
        mgtest.die("mesh.json is the identity placement; such a golden pins no placement")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("meshgen")
    ap.add_argument("dir")
    ap.add_argument("--include", required=True)
    ap.add_argument("--cc", action="append", default=[])
    a = ap.parse_args()
    gdir = os.path.abspath(a.dir)
    extra = []
    if os.path.exists(os.path.join(gdir, "args")):
        extra = shlex.split(mgtest.read_text(os.path.join(gdir, "args")))
    expected_dir = os.path.join(gdir, "expected")
    update = os.environ.get("MESHGEN_UPDATE_GOLDEN") == "1"

    with mgtest.tempdir("golden") as t1, mgtest.tempdir("golden") as t2:
        files = generate(a.meshgen, gdir, "spec.yaml", extra, t1, gdir)
        files["resolve.json"] = run([a.meshgen, "resolve", "spec.yaml"] + extra, gdir)

        env = mgtest.env_with(TZ="Asia/Kathmandu", LC_ALL="C.UTF-8", LANG="C.UTF-8")
        old = os.umask(0o077)
        try:
            again = generate(a.meshgen, gdir, os.path.join(gdir, "spec.yaml"), extra, t2, "/",
                             env)
        finally:
            os.umask(old)
        for f, data in again.items():
            if files.get(f) != data:
                mgtest.die(f"{f} differs when generated from another directory, time zone, "
                           "locale and umask")

        check_mesh(gdir, files["resolve.json"])
        if update:
            os.makedirs(expected_dir, exist_ok=True)
        else:
            want = sorted(os.listdir(expected_dir))
            if want != sorted(files):
                mgtest.die(f"generated {sorted(files)}, expected {want}")
        for f, data in files.items():
            diff = mgtest.golden(os.path.join(expected_dir, f), data, update)
            if diff:
                mgtest.die(f"{f} differs from the golden file (MESHGEN_UPDATE_GOLDEN=1 rewrites "
                           f"it):\n{diff}")
        if update:
            print(f"updated {expected_dir}")

        if not a.cc:
            mgtest.die("no --cc given: the generated C must be compiled")
        for cc in a.cc:
            if not cc or cc.endswith("NOTFOUND"):
                mgtest.die(f"a C compiler was not found ({cc!r}); install gcc and clang "
                           "(scripts/setup-deps.sh): the compile step is part of the test")
            for f in files:
                if f.endswith(".c"):
                    run([cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I",
                         a.include, "-I", t1, "-c", os.path.join(t1, f), "-o",
                         os.path.join(t1, f + "." + os.path.basename(cc) + ".o")], t1)
    print(f"golden {os.path.basename(gdir)}: ok ({len(files)} files, "
          f"reproducible, compiled with {len(a.cc)} compilers)")


if __name__ == "__main__":
    main()
