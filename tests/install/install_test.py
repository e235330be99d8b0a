#!/usr/bin/env python3
"""meshgen as another project uses it: installed, found, overridden, embedded.

usage: install_test.py BUILD_DIR SOURCE_DIR

Installs BUILD_DIR into a temporary prefix, then, with nothing from the
source tree on the consumer's paths:
- the prefix holds the JSON Schemas (share/meshgen/schemas/) and the man
  page (share/man/man1/meshgen.1);
- a consumer project (tests/install/consumer: find_package(meshgen) and
  meshgen_add_mesh(), its spec's name quoted) configures, builds and runs
  with the Ninja and the Unix Makefiles generators; with each, a spec or
  an inventory whose bytes change but whose mesh does not (a touched spec,
  an edited comment, a touched inventory that only the depfile names)
  regenerates without moving the mtime of any object or of the program,
  and the build after that does not run the generator (a fixed point);
  a renamed `name:` re-runs cmake, which names the new files and removes
  the old ones, so that a program still including the old header fails to
  compile, naming it, not to link;
- with MESHGEN_EXECUTABLE set to a wrapper script, the wrapper, not the
  installed meshgen, answers --print-outputs at configure time and
  generates at build time;
- a parent project that add_subdirectory()s the source tree does not get
  meshgen's tests, examples or benchmarks, nor a CMAKE_BUILD_TYPE in its
  cache, and configures with a quoted `name:` (read by cmake, the
  generator not being built yet); with MESHGEN_BUILD_GENERATOR=OFF and
  MESHGEN_EXECUTABLE (a cross build's set-up) it generates and builds the
  tables without building a generator;
- a program built with the installed pkg-config files alone looks up and
  verifies.
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tools"))
import mgtest  # noqa: E402  (tests/tools: the scripts' shared helpers)

HERE = os.path.dirname(os.path.abspath(__file__))
INV = "synthetic:pack:2 core:4 pu:1"
EXPECTED = "device at (1,2): 6"
CHECKS = mgtest.Checks("install")
check = CHECKS.check
run = mgtest.output


def mtimes(build, names):
    """The mtime of every file of build whose name ends with one of names."""
    found = {}
    for root, _, files in os.walk(build):
        for f in files:
            if f.endswith(names):
                path = os.path.join(root, f)
                found[os.path.relpath(path, build)] = os.stat(path).st_mtime_ns
    return found


def consumer(tmp, prefix, generator, extra=()):
    """Configures, builds and runs a copy of the consumer project."""
    tag = generator.split()[0].lower()
    src = os.path.join(tmp, "src-" + tag)
    build = os.path.join(tmp, "build-" + tag)
    shutil.copytree(os.path.join(HERE, "consumer"), src)
    run(["cmake", "-S", src, "-B", build, "-G", generator, f"-DCMAKE_PREFIX_PATH={prefix}"]
        + list(extra))
    run(["cmake", "--build", build])
    out = run([os.path.join(build, "consumer")]).strip()
    check(out == EXPECTED, f"{generator}: the consumer builds and prints {out!r}")
    return src, build


def no_op_rebuild(src, build, generator):
    """A changed spec or inventory with an unchanged mesh runs the generator
    once, rebuilds nothing, and leaves a build with nothing to do."""
    spec = os.path.join(src, "mesh.yaml")
    header = os.path.join(build, "consumer_mesh_meshgen", "consumer_mesh.h")
    before = mtimes(build, (".o", "consumer", ".a", "_mesh.h", "_mesh.c"))
    check(len(before) >= 5, f"{generator}: objects, archives and outputs found: {sorted(before)}")
    for what, path, edit in (
            ("a touched spec", spec, None),
            ("a comment in the spec", spec, open(spec).read() + "# a comment the mesh does not see\n"),
            ("a touched inventory (named by the depfile only)",
             os.path.join(src, "inventory.yaml"), None)):
        mgtest.bump(path, build, edit)
        log = run(["cmake", "--build", build, "--verbose"])
        check("--depfile" in log, f"{generator}: after {what}, the generator ran again")
        after = mtimes(build, (".o", "consumer", ".a", "_mesh.h", "_mesh.c"))
        moved = sorted(f for f in before if after.get(f) != before[f])
        check(not moved, f"{generator}: after {what}, a regeneration that changes nothing moves "
                         f"no mtime (moved: {moved})")
        log = run(["cmake", "--build", build, "--verbose"])
        check("--depfile" not in log,
              f"{generator}: after {what} and one build, the next does not run the generator "
              f"(a fixed point)")
        if generator == "Ninja":
            log = run(["cmake", "--build", build])
            check("no work to do" in log, f"Ninja: after {what}, the build is clean: {log!r}")
    check(os.path.exists(header), f"{generator}: {header} is there")


def rename(src, build, generator):
    """A new `name:` re-runs cmake, which removes the files of the old name:
    the program, which still includes the old header, fails to compile and
    says which header, instead of compiling against a stale one and failing
    to link."""
    spec = os.path.join(src, "mesh.yaml")
    out = os.path.join(build, "consumer_mesh_meshgen")
    mgtest.bump(spec, build, open(spec).read().replace('name: "consumer"', "name: 'renamed'"))
    p = subprocess.run(["cmake", "--build", build, "--target", "consumer_mesh"],
                       capture_output=True, text=True)
    check(p.returncode == 0 and os.path.exists(os.path.join(out, "renamed_mesh.c")),
          f"{generator}: renaming the mesh reconfigures and generates renamed_mesh.c "
          f"(exit {p.returncode}){p.stdout[-400:] if p.returncode else ''}")
    left = sorted(f for f in os.listdir(out) if f.startswith("consumer_mesh"))
    check(not left, f"{generator}: no file of the old name is left in {out}: {left}")
    p = subprocess.run(["cmake", "--build", build], capture_output=True, text=True)
    log = p.stdout + p.stderr
    check(p.returncode != 0 and "consumer_mesh.h" in log and "undefined reference" not in log,
          f"{generator}: the program that includes the old header fails to compile, naming it "
          f"(exit {p.returncode}): {log[-600:]!r}")


def installed_files(prefix):
    for f in ("mesh.schema.json", "inventory.schema.json", "resolve.schema.json"):
        path = os.path.join(prefix, "share", "meshgen", "schemas", f)
        check(os.path.isfile(path) and open(path).read() ==
              open(os.path.join(HERE, "..", "..", "schemas", f)).read(),
              f"share/meshgen/schemas/{f} is installed")
    man = os.path.join(prefix, "share", "man", "man1", "meshgen.1")
    check(os.path.isfile(man), "share/man/man1/meshgen.1 is installed")


def wrapper(tmp, prefix):
    """MESHGEN_EXECUTABLE wins over the imported meshgen::meshgen."""
    log = os.path.join(tmp, "wrapper.log")
    script = os.path.join(tmp, "host-meshgen")
    with open(script, "w") as f:
        f.write(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{prefix}/bin/meshgen" "$@"\n')
    os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR)
    src = os.path.join(tmp, "src-wrapped")
    build = os.path.join(tmp, "build-wrapped")
    shutil.copytree(os.path.join(HERE, "consumer"), src)
    run(["cmake", "-S", src, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DMESHGEN_EXECUTABLE={script}"])
    lines = open(log).read().splitlines() if os.path.exists(log) else []
    check(any("--print-outputs" in l for l in lines),
          f"MESHGEN_EXECUTABLE answers --print-outputs at configure time: {lines}")
    run(["cmake", "--build", build])
    lines = open(log).read().splitlines()
    check(any("--depfile" in l for l in lines),
          f"MESHGEN_EXECUTABLE generates at build time: {lines}")
    check(run([os.path.join(build, "consumer")]).strip() == EXPECTED,
          "the consumer built with the wrapper runs")


def embedded(tmp, source, prefix):
    """add_subdirectory(meshgen): no tests, examples, benchmarks or build
    type forced on the parent."""
    src = os.path.join(tmp, "parent")
    build = os.path.join(tmp, "build-parent")
    os.makedirs(src)
    open(os.path.join(src, "mesh.yaml"), "w").write(
        'meshgen: 1\nname: "q"   # quoted, as YAML allows\nmesh:\n  axes: [dp]\n  shape: [-1]\n')
    open(os.path.join(src, "CMakeLists.txt"), "w").write(
        "cmake_minimum_required(VERSION 3.20)\nproject(parent C)\n"
        f'add_subdirectory("{source}" meshgen)\n'
        f'meshgen_add_mesh(q_tables SPEC mesh.yaml INVENTORY "{INV}")\n'
        'get_target_property(name q_tables MESHGEN_NAME)\n'
        'if(NOT name STREQUAL "q")\n  message(FATAL_ERROR "name: ${name}")\nendif()\n')
    run(["cmake", "-S", src, "-B", build, "-G", "Ninja"])
    cache = {}
    for line in open(os.path.join(build, "CMakeCache.txt")):
        if "=" in line and not line.startswith(("#", "//")):
            key, value = line.rstrip("\n").split("=", 1)
            cache[key.split(":")[0]] = value
    for opt in ("MESHGEN_BUILD_TESTS", "MESHGEN_BUILD_EXAMPLES", "MESHGEN_BUILD_BENCH"):
        check(cache.get(opt) == "OFF", f"add_subdirectory: {opt} is {cache.get(opt)}, not ON")
    check(cache.get("CMAKE_BUILD_TYPE", "") == "",
          f"add_subdirectory: the parent's CMAKE_BUILD_TYPE stays unset "
          f"({cache.get('CMAKE_BUILD_TYPE')!r})")
    # A cross build's shape: the generator not built, a host meshgen named.
    cross = os.path.join(tmp, "build-parent-cross")
    run(["cmake", "-S", src, "-B", cross, "-G", "Ninja", "-DMESHGEN_BUILD_GENERATOR=OFF",
         f"-DMESHGEN_EXECUTABLE={prefix}/bin/meshgen"])
    run(["cmake", "--build", cross, "--target", "q_tables"])
    check(os.path.exists(os.path.join(cross, "q_tables_meshgen", "q_mesh.c")) and
          not os.path.exists(os.path.join(cross, "meshgen", "gen")),
          "add_subdirectory with MESHGEN_BUILD_GENERATOR=OFF and MESHGEN_EXECUTABLE "
          "generates with the host meshgen")


def pkgconfig(tmp, prefix):
    gen = os.path.join(tmp, "gen")
    os.mkdir(gen)
    run([os.path.join(prefix, "bin", "meshgen"), "generate", os.path.join(HERE, "consumer",
         "mesh.yaml"), "--inventory", INV, "-o", gen])
    pcdir = None
    for root, _, files in os.walk(prefix):
        if "meshgen-placement.pc" in files:
            pcdir = root
    flags = run(["pkg-config", "--cflags", "--libs", "meshgen-placement"],
                env=dict(os.environ, PKG_CONFIG_PATH=pcdir)).split()
    exe = os.path.join(tmp, "pkgconfig")
    run([os.environ.get("CC", "cc"), "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", gen,
         os.path.join(HERE, "pkgconfig.c"), os.path.join(gen, "consumer_mesh.c")] + flags +
        ["-o", exe])
    out = run([exe])
    check(out == EXPECTED + "\nverify: ran\n", f"pkg-config: the program prints {out!r}")


def main():
    build, source = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "prefix")
        run(["cmake", "--install", build, "--prefix", prefix])
        installed_files(prefix)
        for generator in ("Ninja", "Unix Makefiles"):
            src, b = consumer(tmp, prefix, generator)
            no_op_rebuild(src, b, generator)
            rename(src, b, generator)
        wrapper(tmp, prefix)
        embedded(tmp, source, prefix)
        pkgconfig(tmp, prefix)
    CHECKS.exit()


if __name__ == "__main__":
    main()
