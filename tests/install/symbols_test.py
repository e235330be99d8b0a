#!/usr/bin/env python3
"""The shared runtime exports its public API, exactly.

usage: symbols_test.py SOURCE_DIR

Builds the runtime libraries of SOURCE_DIR as shared libraries (runtime
only, BUILD_SHARED_LIBS=ON) in a temporary directory, then checks:
- every function that <meshgen/meshgen.h> declares is marked MESHGEN_API,
  except the static inline ones it defines (meshgen_cursor_group), which
  must then be exported by no library: they are compiled into the caller;
- the dynamic symbols that libmeshgen.so and libmeshgen_placement.so
  define (nm -D --defined-only) are exactly those functions, both ways:
  none missing, no internal helper (meshgen__*) or anything else besides;
  meshgen_bind and meshgen_verify in the placement library, the rest in
  libmeshgen;
- each library's soname carries the major version, and the minor one
  while the major is 0 (libmeshgen.so.0.1 for 0.1.x).
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tools"))
import mgtest  # noqa: E402  (tests/tools: the scripts' shared helpers)

PLACEMENT = {"meshgen_bind", "meshgen_verify"}
CHECKS = mgtest.Checks("symbols")
check = CHECKS.check
run = mgtest.output


def header_api(path):
    """The functions the header declares, those among them marked
    MESHGEN_API, and the static ones it defines. A declaration starts at
    column 0 and names meshgen_X( ."""
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    declared, marked, static, version = set(), set(), set(), {}
    for line in text.splitlines():
        m = re.match(r"#define MESHGEN_VERSION_(MAJOR|MINOR) (\d+)", line)
        if m:
            version[m.group(1)] = int(m.group(2))
        if not line or line[0] in " #}\t" or line.startswith(("typedef", "struct", "enum")):
            continue
        m = re.search(r"\b(meshgen_\w+)\s*\(", line)
        if m and line.startswith("static "):
            static.add(m.group(1))
        elif m:
            declared.add(m.group(1))
            if line.startswith("MESHGEN_API "):
                marked.add(m.group(1))
    return declared, marked, static, version


def exported(lib):
    out = run(["nm", "-D", "--defined-only", lib])
    return {l.split()[-1] for l in out.splitlines() if l.strip()}


def main():
    source = sys.argv[1]
    declared, marked, static, version = header_api(
        os.path.join(source, "runtime", "include", "meshgen", "meshgen.h"))
    check(len(declared) >= 20, f"the header declares {len(declared)} functions")
    check({"meshgen_axis_groups", "meshgen_cursor_init"} <= declared,
          "the batch groups call and the cursor's init are declared")
    check("meshgen_cursor_group" in static,
          f"meshgen_cursor_group is defined static inline in the header (static: {sorted(static)})")
    check(declared == marked, f"every declared function is MESHGEN_API "
                              f"(unmarked: {sorted(declared - marked)})")
    with tempfile.TemporaryDirectory() as tmp:
        run(["cmake", "-S", source, "-B", tmp, "-G", "Ninja", "-DBUILD_SHARED_LIBS=ON",
             "-DMESHGEN_BUILD_GENERATOR=OFF", "-DMESHGEN_BUILD_TESTS=OFF",
             "-DMESHGEN_BUILD_EXAMPLES=OFF", "-DMESHGEN_BUILD_BENCH=OFF",
             "-DCMAKE_BUILD_TYPE=RelWithDebInfo"])
        run(["cmake", "--build", tmp, "--target", "meshgen_runtime", "meshgen_placement"])
        libs = {"runtime": os.path.join(tmp, "runtime", "libmeshgen.so"),
                "placement": os.path.join(tmp, "runtime", "libmeshgen_placement.so")}
        syms = {k: exported(v) for k, v in libs.items()}
        want = {"runtime": declared - PLACEMENT, "placement": PLACEMENT}
        for k in libs:
            check(not (syms[k] & static),
                  f"{os.path.basename(libs[k])} exports none of the header's static functions "
                  f"({sorted(syms[k] & static)})")
            check(syms[k] == want[k],
                  f"{os.path.basename(libs[k])} exports the header's functions, no more "
                  f"(missing: {sorted(want[k] - syms[k])}, extra: {sorted(syms[k] - want[k])})")
        soversion = (f"{version['MAJOR']}.{version['MINOR']}" if version["MAJOR"] == 0
                     else f"{version['MAJOR']}")
        for k, lib in libs.items():
            dyn = run(["objdump", "-p", lib])
            m = re.search(r"SONAME\s+(\S+)", dyn)
            name = os.path.basename(lib) + "." + soversion
            check(m is not None and m.group(1) == name,
                  f"{os.path.basename(lib)}: soname {m.group(1) if m else None}, expected {name}")
    CHECKS.exit()


if __name__ == "__main__":
    main()
