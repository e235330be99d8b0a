#!/usr/bin/env python3
"""Group tables compiled from strings hold the bytes of the integers.

The generated source writes each group table as string literals of its
little-endian bytes where the compiler says it is little-endian, and
otherwise, or with MESHGEN_GROUP_TABLES_AS_INTEGERS defined, as integers
for tables of up to 65 536 entries in all and as an #error past that
(docs/reference.md, "Group tables"). For a mesh whose tables each fit in
one short string, one of exactly 65 536 entries (32 full strings a table)
and one past it (70 full strings and a part, device ids past 65535, so
three bytes of each id vary), this test

- preprocesses the source both ways and finds every table initialised
  from strings by default and from integers (or the #error) when forced,
  so each build below compiles the form it claims to;
- compiles it both ways with -std=c99 and -std=c11, -Wall -Wextra
  -Wpedantic -Werror, or finds the #error stopping the forced build;
- links each build into group_tables_check.c, built as C11 and, with the
  C++ compiler beside CC, as C++17 (-Werror too), which holds every entry
  against meshgen_group_index() and every row against meshgen_group(), and
  writes the tables' bytes;
- compares those bytes: the string form and the integer form must give the
  same memory on this machine.

On a compiler that is not little-endian the default build is the forced
one, and the test expects that.

    group_tables.py MESHGEN RUNTIME_INCLUDE CC DATA_DIR RUNTIME_SOURCE...
"""
import os
import re
import shutil
import sys

import mgtest

WARN = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
FORCE = "-DMESHGEN_GROUP_TABLES_AS_INTEGERS"

# name -> (spec lines after the name, inventory argument or None, axes)
MESHES = {
    # 8 entries a table: one string of 31 bytes.
    "gt_small": ("mesh: {axes: [dp, tp], shape: [2, 4]}\n", "synthetic:pack:2 core:4 pu:1",
                 ["dp", "tp"]),
    # 32 768 GPUs of 4096 hosts, 65 536 entries in all: the most that keeps
    # the integers; 32 strings of 4095 bytes and their NULs a table.
    "gt_edge": ("inventory: edge.yaml\nmesh: {axes: [dp, tp], shape: [-1, 8]}\n", None,
                ["dp", "tp"]),
    # 72 000 GPUs of 9000 hosts: 70 full strings and a short one a table.
    "gt_big": ("inventory: big.yaml\nmesh: {axes: [pp, dp, tp], shape: [4, -1, 8]}\n", None,
               ["pp", "dp", "tp"]),
}
INVENTORIES = {"edge.yaml": "n[0001-4096]", "big.yaml": "n[00001-09000]"}
AUTO_LIMIT = 65536
LITTLE = sys.byteorder == "little"


def run(cmd, what, checks):
    """cmd; a failure recorded in checks (None: a failure that is expected)."""
    p = mgtest.run(cmd, text=True)
    if p.returncode != 0 and checks is not None:
        checks.fail(f"{what}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def initialisers(cc, include, out, c_file, extra, checks):
    """The union members the tables are initialised with, after preprocessing."""
    p = run([cc, "-std=c11", "-E", "-P", "-I", include, "-I", out, c_file] + extra,
            f"{cc} -E {' '.join(extra)}", checks)
    return re.findall(r"__groups_data__\w+ = \{\.(\w+) = \{", p.stdout)


def write_list(path, name, axes):
    rows = []
    for a in axes:
        t = f"{name}__groups__{a}"
        macro = f"{name.upper()}_MESH_GROUPS__{a}"
        rows.append(f'    {{"{a}", {name.upper()}_MESH_AXIS__{a}, &{t}[0][0], sizeof {t}, '
                    f"{macro}__COUNT, {macro}__SIZE}},")
    mgtest.write(path, f'#include "{name}_mesh.h"\n#define MESH {name}_mesh\n'
                 "static const struct group_table TABLES[] = {\n" + "\n".join(rows) + "\n};\n")


def forms(n_entries):
    """(extra flags, what the tables are initialised from) of each build:
    the default and the forced one; None where the build must stop at the
    #error."""
    fallback = "table" if n_entries <= AUTO_LIMIT else None
    return [([], "bytes" if LITTLE else fallback), ([FORCE], fallback)]


def build_and_dump(tools, out, name, obj, lst, checks):
    """The check program as C11 and C++17 against one build of the tables:
    {language: the tables' bytes}."""
    meshgen, include, cc, runtime_objs = tools
    check_src = os.path.join(mgtest.HERE, "group_tables_check.c")
    cxx = mgtest.cxx_beside(cc)
    dumps = {}
    builds = [(cc, ["-x", "c", "-std=c11"])] + ([(cxx, ["-x", "c++", "-std=c++17"])]
                                                if cxx else [])
    for comp, lang in builds:
        exe = obj[:-2] + "-" + lang[1]
        if run([comp] + lang + WARN + ["-I", include, "-I", out, f'-DGROUP_LIST="{lst}"',
                                       "-c", check_src, "-o", exe + ".o"],
               f"{name}: {comp} {lang[1]}", checks).returncode != 0:
            continue
        if run([comp, "-o", exe, exe + ".o", obj] + runtime_objs, f"{name}: link {lang[1]}",
               checks).returncode != 0:
            continue
        if run([exe, exe + ".bin"], f"{name}: {os.path.basename(exe)}",
               checks).returncode == 0:
            dumps[lang[1]] = mgtest.read(exe + ".bin")
    return dumps


def check_mesh(tools, d, name, checks):
    """Generates one mesh and checks its tables both ways; returns a summary."""
    meshgen, include, cc, _ = tools
    spec_text, inventory, axes = MESHES[name]
    spec = mgtest.write(os.path.join(d, name + ".yaml"), f"meshgen: 1\nname: {name}\n{spec_text}")
    out = os.path.join(d, "out-" + name)
    os.mkdir(out)
    cmd = [meshgen, "generate", "--groups", "always", spec, "-o", out]
    if run(cmd + (["--inventory", inventory] if inventory else []), f"{name}: generate",
           checks).returncode != 0:
        return None
    c_file = os.path.join(out, name + "_mesh.c")
    lst = os.path.join(out, "group_list.h")
    write_list(lst, name, axes)
    dumps = {}
    for extra, member in forms(entries_of(out, name, axes)):
        label = " ".join(extra) or "no macro"
        got = initialisers(cc, include, out, c_file, extra, checks if member else None)
        want = [member] * len(axes) if member else []
        if got != want:
            checks.fail(f"{name}, {label}: the tables are initialised from {got}, expected {want}")
        obj = os.path.join(out, f"{name}{'-forced' if extra else ''}.o")
        for std in ("c99", "c11"):
            p = mgtest.run([cc, f"-std={std}"] + WARN + extra + ["-I", include, "-I", out,
                                                                "-c", c_file, "-o", obj],
                           text=True)
            stopped = p.returncode != 0 and "#error" in p.stderr and "--groups auto" in p.stderr
            if (member is None) != stopped or (member and p.returncode != 0):
                checks.fail(f"{name}: {cc} -std={std} {label}: exit {p.returncode}, "
                           f"{'expected the #error' if member is None else 'expected none'}"
                           f"\n{p.stderr[:2000]}")
        if member:
            for lang, data in build_and_dump(tools, out, name, obj, lst, checks).items():
                dumps[(member, lang)] = data
    first = next(iter(dumps.values()), None)
    for (member, lang), data in dumps.items():
        if data != first:
            checks.fail(f"{name}: the tables compiled from .{member}, read from {lang}, "
                       f"differ from those of the first build")
    return (f"{name}: {len(axes)} tables, {len(first or b'')} bytes, {len(dumps)} builds "
            f"agree ({', '.join(f'.{m} from {lang}' for m, lang in dumps)})")


def entries_of(out, name, axes):
    """Entries of all the tables, from the header's COUNT and SIZE macros."""
    text = mgtest.read_text(os.path.join(out, name + "_mesh.h"))
    total = 0
    for a in axes:
        macro = f"{name.upper()}_MESH_GROUPS__{a}"
        count = int(re.search(rf"#define {macro}__COUNT (\d+)", text).group(1))
        size = int(re.search(rf"#define {macro}__SIZE (\d+)", text).group(1))
        total += count * size
    return total


def main():
    meshgen, include, cc, data = sys.argv[1:5]
    runtime_srcs = sys.argv[5:]
    checks = mgtest.Checks("group tables")
    with mgtest.tempdir("group-tables") as d:
        shutil.copy(os.path.join(data, "hwloc", "eas-tioga.xml"), d)
        for inv, names in INVENTORIES.items():
            mgtest.write(os.path.join(d, inv), f"meshgen-inventory: 1\nhosts:\n  - names: {names}\n"
                         "    topology: eas-tioga.xml\n")
        runtime_objs = []
        for i, src in enumerate(runtime_srcs):
            obj = os.path.join(d, f"runtime{i}.o")
            run([cc, "-std=c11", "-O1", "-I", include, "-c", src, "-o", obj],
                f"runtime {src}", checks)
            runtime_objs.append(obj)
        if not checks.fails:
            for name in MESHES:
                summary = check_mesh((meshgen, include, cc, runtime_objs), d, name, checks)
                if summary:
                    print(summary)
    if mgtest.cxx_beside(cc) is None:
        print(f"no C++ compiler beside {cc}: the C++17 build was skipped")
    return checks.done()


if __name__ == "__main__":
    sys.exit(main())
