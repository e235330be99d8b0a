#!/usr/bin/env python3
"""The Make and Meson recipes of docs/reference.md, built as written.

usage: recipes_test.py make|meson BUILD_DIR SOURCE_DIR

Installs BUILD_DIR into a temporary prefix, takes the ```make (or ```meson)
block of docs/reference.md, section 10, as a project's Makefile (or
meson.build) beside a spec, an inventory and a program, and with only the
prefix's pkg-config directory on PKG_CONFIG_PATH:
- `pkg-config --variable=meshgen meshgen` is the installed bin/meshgen;
- the project builds, and its program prints the device of the generated
  tables at (1, 2);
- a touched spec, an edited comment in it and a touched inventory (which
  only the depfile names) each run the generator once, and the build after
  that has nothing to do: `make -q` succeeds, Ninja says "no work to do".
Exits 77 (skipped) when meson is not installed (scripts/setup-deps.sh
installs it).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tools"))
import mgtest  # noqa: E402  (tests/tools: the scripts' shared helpers)

SPEC = """meshgen: 1
name: train
inventory: cluster.yaml
mesh:
  axes: [dp, tp]
  shape: [-1, 4]
"""
INVENTORY = """meshgen-inventory: 1
hosts:
  - names: node1
    synthetic: "pack:2 core:4 pu:1"
"""
PROGRAM = """#include <stdio.h>

#include "train_mesh.h"

int main(void)
{
    const int32_t coords[TRAIN_MESH_AXES] = {1, 2};
    printf("device at (1,2): %d\\n", meshgen_device_at(&train_mesh, coords));
    return 0;
}
"""
EXPECTED = "device at (1,2): 6"
CHECKS = mgtest.Checks("recipes")
check = CHECKS.check
run = mgtest.output


def recipe(source, lang):
    """The one ```lang block of docs/reference.md's section 10."""
    text = open(os.path.join(source, "docs", "reference.md")).read()
    section = text[text.index("\n## 10. "):]
    blocks = re.findall(r"^```" + lang + r"\n(.*?)^```$", section, re.S | re.M)
    if len(blocks) != 1:
        raise SystemExit(f"FAIL: docs/reference.md §10 has {len(blocks)} ```{lang} blocks, not 1")
    return blocks[0]


def project(tmp, source, lang, name):
    src = os.path.join(tmp, lang)
    os.mkdir(src)
    for file, text in ((name, recipe(source, lang)), ("mesh.yaml", SPEC),
                       ("cluster.yaml", INVENTORY), ("trainer.c", PROGRAM)):
        open(os.path.join(src, file), "w").write(text)
    return src


def settles(src, build, step, idle, what):
    """Each change runs the generator once, then the build is idle."""
    spec = os.path.join(src, "mesh.yaml")
    for edit, path, text in (("a touched spec", spec, None),
                             ("a comment added to the spec", spec, SPEC + "# unseen\n"),
                             ("a touched inventory", os.path.join(src, "cluster.yaml"), None)):
        mgtest.bump(path, src, text)
        log = step()
        check("generate" in log, f"{what}: after {edit} the generator runs: {log[-300:]!r}")
        check(idle(), f"{what}: after {edit} and one build, the next has nothing to do")
    out = run([os.path.join(build, "trainer")]).strip()
    check(out == EXPECTED, f"{what}: the program still prints {out!r}")


def with_make(tmp, source, env):
    src = project(tmp, source, "make", "Makefile")
    run(["make", "-C", src], env=env)
    out = run([os.path.join(src, "trainer")]).strip()
    check(out == EXPECTED, f"make: the recipe builds and the program prints {out!r}")
    check(subprocess.run(["make", "-q", "-C", src], env=env).returncode == 0,
          "make: after the first build, `make -q` finds nothing to do")
    settles(src, src, lambda: run(["make", "-C", src], env=env),
            lambda: subprocess.run(["make", "-q", "-C", src], env=env).returncode == 0, "make")


def with_meson(tmp, source, env):
    src = project(tmp, source, "meson", "meson.build")
    build = os.path.join(tmp, "build-meson")
    run(["meson", "setup", build, src], env=env)
    run(["meson", "compile", "-C", build], env=env)
    out = run([os.path.join(build, "trainer")]).strip()
    check(out == EXPECTED, f"meson: the recipe builds and the program prints {out!r}")
    ninja = lambda: run(["ninja", "-C", build, "-v"], env=env)
    settles(src, build, ninja, lambda: "no work to do" in ninja(), "meson")


def main():
    lang, build, source = sys.argv[1], sys.argv[2], sys.argv[3]
    if lang == "meson" and not shutil.which("meson"):
        print("skip: meson is not installed (scripts/setup-deps.sh installs Debian's meson)")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "prefix")
        run(["cmake", "--install", build, "--prefix", prefix])
        pcdir = next(root for root, _, files in os.walk(prefix) if "meshgen.pc" in files)
        env = dict(os.environ, PKG_CONFIG_PATH=pcdir)
        env.pop("PKG_CONFIG_LIBDIR", None)
        gen = run(["pkg-config", "--variable=meshgen", "meshgen"], env=env).strip()
        check(os.path.isfile(gen) and os.path.samefile(gen, os.path.join(prefix, "bin", "meshgen")),
              f"pkg-config --variable=meshgen meshgen is the installed bin/meshgen: {gen!r}")
        (with_make if lang == "make" else with_meson)(tmp, source, env)
    CHECKS.exit(lang)


if __name__ == "__main__":
    main()
