#!/usr/bin/env python3
"""Group tables compiled from strings hold the bytes of the integers.

The generated source writes each group table twice (docs/reference.md,
"Group tables"): as string literals of its little-endian bytes where the
compiler says it is little-endian, else as integers, which
MESHGEN_GROUP_TABLES_AS_INTEGERS forces. For meshes whose tables fill less
than one 4096-byte string, exactly two, and 70 and a part (device ids past
65535, so three bytes of each id vary), this test

- preprocesses the source both ways and finds every table initialised
  from strings by default and from integers when forced, so each build
  below compiles the form it claims to;
- compiles it both ways with -std=c99 and -std=c11, -Wall -Wextra
  -Wpedantic -Werror;
- links each build into group_tables_check.c, built as C11 and, with the
  C++ compiler beside CC, as C++17 (-Werror too), which holds every entry
  against meshgen_group_index() and every row against meshgen_group(), and
  writes the tables' bytes;
- compares those bytes: the string form and the integer form must give the
  same memory on this machine.

    group_tables.py MESHGEN RUNTIME_INCLUDE CC DATA_DIR RUNTIME_SOURCE...
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WARN = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
FORCE = "-DMESHGEN_GROUP_TABLES_AS_INTEGERS"

# name -> (spec lines after the name, inventory argument or None, axes)
MESHES = {
    # 8 entries a table: one string of 31 bytes.
    "gt_small": ("mesh: {axes: [dp, tp], shape: [2, 4]}\n", "synthetic:pack:2 core:4 pu:1",
                 ["dp", "tp"]),
    # 2048 entries: two full strings of 4095 bytes and their NULs.
    "gt_rows": ("mesh: {axes: [x, y], shape: [2, 1024]}\n", "synthetic:pack:2 core:1024 pu:1",
                ["x", "y"]),
    # 72 000 GPUs of 9000 hosts: 70 full strings and a short one per table.
    "gt_big": ("inventory: inventory.yaml\nmesh: {axes: [pp, dp, tp], shape: [4, -1, 8]}\n",
               None, ["pp", "dp", "tp"]),
}
INVENTORY = ("meshgen-inventory: 1\nhosts:\n  - names: n[00001-09000]\n"
             "    topology: eas-tioga.xml\n")


def run(cmd, what, fails):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fails.append(f"{what}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def cxx_beside(cc):
    """The C++ compiler beside CC (g++ for gcc, clang++ for clang), or None."""
    base = os.path.basename(cc)
    for c, cxx in (("clang", "clang++"), ("gcc", "g++"), ("cc", "c++")):
        if base.startswith(c):
            path = os.path.join(os.path.dirname(cc), cxx + base[len(c):])
            return path if os.access(path, os.X_OK) else None
    return None


def initialisers(cc, include, out, c_file, extra, fails):
    """The union members the tables are initialised with, after preprocessing."""
    p = run([cc, "-std=c11", "-E", "-P", "-I", include, "-I", out, c_file] + extra,
            f"{cc} -E {' '.join(extra)}", fails)
    return re.findall(r"__groups_data__\w+ = \{\.(\w+) = \{", p.stdout)


def write_list(path, name, axes):
    rows = []
    for a in axes:
        t = f"{name}__groups__{a}"
        macro = f"{name.upper()}_MESH_GROUPS__{a}"
        rows.append(f'    {{"{a}", {name.upper()}_MESH_AXIS__{a}, &{t}[0][0], sizeof {t}, '
                    f"{macro}__COUNT, {macro}__SIZE}},")
    with open(path, "w") as f:
        f.write(f'#include "{name}_mesh.h"\n#define MESH {name}_mesh\n'
                "static const struct group_table TABLES[] = {\n" + "\n".join(rows) + "\n};\n")


def check_mesh(tools, d, name, fails):
    """Generates one mesh and checks its tables both ways; returns a summary."""
    meshgen, include, cc, runtime_objs = tools
    spec_text, inventory, axes = MESHES[name]
    spec = os.path.join(d, name + ".yaml")
    with open(spec, "w") as f:
        f.write(f"meshgen: 1\nname: {name}\n{spec_text}")
    out = os.path.join(d, "out-" + name)
    os.mkdir(out)
    cmd = [meshgen, "generate", "--groups", "always", spec, "-o", out]
    if run(cmd + (["--inventory", inventory] if inventory else []), f"{name}: generate",
           fails).returncode != 0:
        return None
    c_file = os.path.join(out, name + "_mesh.c")
    for extra, member in (([], "bytes"), ([FORCE], "table")):
        got = initialisers(cc, include, out, c_file, extra, fails)
        if got != [member] * len(axes):
            fails.append(f"{name}: preprocessed with {extra or 'no macro'}, the tables are "
                         f"initialised from {got}, expected .{member} for each of {axes}")
    lst = os.path.join(out, "group_list.h")
    write_list(lst, name, axes)
    check_src = os.path.join(HERE, "group_tables_check.c")
    cxx = cxx_beside(cc)
    dumps = {}
    for extra in ([], [FORCE]):
        form = "integers" if extra else "strings"
        obj = os.path.join(out, f"{name}-{form}.o")
        for std in ("c99", "c11"):
            run([cc, f"-std={std}"] + WARN + extra + ["-I", include, "-I", out, "-c", c_file,
                                                      "-o", obj], f"{name}: {cc} -std={std} "
                f"{' '.join(extra)}", fails)
        builds = [(cc, ["-x", "c", "-std=c11"])] + ([(cxx, ["-x", "c++", "-std=c++17"])]
                                                    if cxx else [])
        for comp, lang in builds:
            exe = os.path.join(out, f"check-{form}-{lang[1]}")
            check_obj = exe + ".o"
            if run([comp] + lang + WARN + ["-I", include, "-I", out,
                                           f'-DGROUP_LIST="{lst}"', "-c", check_src, "-o",
                                           check_obj], f"{name}: {comp} {lang[1]}",
                   fails).returncode != 0:
                continue
            if run([comp, "-o", exe, check_obj, obj] + runtime_objs,
                   f"{name}: link {lang[1]}", fails).returncode != 0:
                continue
            dump = exe + ".bin"
            p = run([exe, dump], f"{name}: {form}, {lang[1]}", fails)
            if p.returncode == 0:
                dumps[(form, lang[1])] = open(dump, "rb").read()
    first = dumps.get(("strings", "c"))
    for key, data in dumps.items():
        if data != first:
            fails.append(f"{name}: the tables compiled from {key[0]}, read from {key[1]}, "
                         f"differ from those compiled from strings, read from C")
    n_bytes = len(first) if first else 0
    return f"{name}: {len(axes)} tables, {n_bytes} bytes, {len(dumps)} builds agree"


def main():
    meshgen, include, cc, data = sys.argv[1:5]
    runtime_srcs = sys.argv[5:]
    fails = []
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(os.path.join(data, "hwloc", "eas-tioga.xml"), d)
        with open(os.path.join(d, "inventory.yaml"), "w") as f:
            f.write(INVENTORY)
        runtime_objs = []
        for i, src in enumerate(runtime_srcs):
            obj = os.path.join(d, f"runtime{i}.o")
            run([cc, "-std=c11", "-O1", "-I", include, "-c", src, "-o", obj],
                f"runtime {src}", fails)
            runtime_objs.append(obj)
        if not fails:
            for name in MESHES:
                summary = check_mesh((meshgen, include, cc, runtime_objs), d, name, fails)
                if summary:
                    print(summary)
    if cxx_beside(cc) is None:
        print(f"no C++ compiler beside {cc}: the C++17 build was skipped")
    for f in fails:
        print("FAIL:", f)
    print(f"group tables: {len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
