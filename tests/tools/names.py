#!/usr/bin/env python3
"""Generated names that cannot collide (docs/reference.md, "Generated names").

Adversarial meshes, each either refused by the check that says why (exit 1,
the check's name and the file:line:col of the offending name) or generated;
every generated pair is then included and linked into ONE program with the
runtime, compiled with -std=c11 -Wall -Wextra -Wpedantic -Werror (a macro
defined twice, a header guard shared by two meshes or a symbol defined twice
checks the build), and the program checks the value of every constant that a
collision would have changed, at compile time and at run time. The same
program is then built as C++17 (-Wall -Wextra -Wpedantic -Werror, the
C++ compiler beside CC: g++ for gcc, clang++ for clang) against the same
headers and the tables compiled as C, as a C++ program that includes the
generated headers would be; skipped, and said so, when there is none.

    names.py MESHGEN RUNTIME_INCLUDE CC RUNTIME_SOURCE...
"""
import os
import sys

import mgtest

INV = mgtest.INV

# (file, spec text, expected check or None, expected line:col)
REFUSED = [
    ("upper.yaml", "name: A\nmesh: {axes: [dp], shape: [-1]}\n", "name-identifier", "2:7"),
    ("meshgen.yaml", "name: meshgen\nmesh: {axes: [dp], shape: [-1]}\n", "name-identifier",
     "2:7"),
    ("meshgen_x.yaml", "name: meshgen_x\nmesh: {axes: [dp], shape: [-1]}\n", "name-identifier",
     "2:7"),
    ("cap_meshgen.yaml", "name: Meshgen\nmesh: {axes: [EXPLICIT], shape: [-1]}\n",
     "name-identifier", "2:7"),
    ("dunder_mesh.yaml", "name: x__y\nmesh: {axes: [dp], shape: [-1]}\n", "name-identifier",
     "2:7"),
    ("trailing_mesh.yaml", "name: x_\nmesh: {axes: [dp], shape: [-1]}\n", "name-identifier",
     "2:7"),
    ("dunder_axis.yaml", "name: dunder\nmesh: {axes: [tp, tp__SIZE], shape: [2, -1]}\n",
     "axis-name-identifier", "3:19"),
    ("trailing_axis.yaml", "name: trailing\nmesh: {axes: [tp_], shape: [-1]}\n",
     "axis-name-identifier", "3:15"),
    ("dunder_sharding.yaml",
     "name: dsh\nmesh: {axes: [tp], shape: [-1]}\nshardings:\n  w: [tp]\n  w__DIMS: [tp]\n",
     "sharding-name", "6:3"),
]

# Meshes that must all be accepted and coexist in one program: name -> spec.
ACCEPTED = {
    # axes tp and tp_SIZE: the old scheme defined X_AXIS_tp_SIZE twice.
    "pair": "mesh: {axes: [tp, tp_SIZE], shape: [2, 4]}\n"
            "shardings:\n  w: [tp]\n  w_DIMS: [tp_SIZE, null]\n",
    # a and x_mesh beside x: X_MESH_... against X_MESH_MESH_...
    "a": "mesh: {axes: [dp], shape: [8]}\n",
    "x": "mesh: {axes: [y_groups_z, MESH_AXIS], shape: [2, 4]}\n",
    "x_groups_y": "mesh: {axes: [z], shape: [8]}\n",
    "x_mesh": "mesh: {axes: [dp, tp], shape: [4, 2]}\n",
    "x_mesh_axis": "mesh: {axes: [tp], shape: [8]}\n",
    # an axis EXPLICIT: the old scheme let mesh Meshgen redefine MESHGEN_AXIS_EXPLICIT.
    "mg": "mesh: {axes: [EXPLICIT, AUTO], shape: [2, 4], types: [explicit, auto]}\n",
}

# The C expressions that must hold, each with the value it must have.
CHECKS = [
    ("PAIR_MESH_AXIS__tp", 0), ("PAIR_MESH_AXIS__tp_SIZE", 1),
    ("PAIR_MESH_AXIS__tp__SIZE", 2), ("PAIR_MESH_AXIS__tp_SIZE__SIZE", 4),
    ("PAIR_MESH_SHARDING__w", 0), ("PAIR_MESH_SHARDING__w_DIMS", 1),
    ("PAIR_MESH_SHARDING__w__DIMS", 1), ("PAIR_MESH_SHARDING__w_DIMS__DIMS", 2),
    ("PAIR_MESH_SHARDING__w_DIMS__DIM0__SHARDS", 4),
    ("PAIR_MESH_GROUPS__tp__SIZE", 2), ("PAIR_MESH_GROUPS__tp_SIZE__SIZE", 4),
    ("A_MESH_DEVICES", 8), ("A_MESH_AXES", 1),
    ("X_MESH_AXES", 2), ("X_MESH_AXIS__y_groups_z__SIZE", 2), ("X_MESH_AXIS__MESH_AXIS", 1),
    ("X_MESH_AXIS__MESH_AXIS__SIZE", 4),
    ("X_GROUPS_Y_MESH_AXES", 1), ("X_GROUPS_Y_MESH_AXIS__z__SIZE", 8),
    ("X_MESH_MESH_AXES", 2), ("X_MESH_MESH_AXIS__tp__SIZE", 2),
    ("X_MESH_AXIS_MESH_AXES", 1), ("X_MESH_AXIS_MESH_AXIS__tp__SIZE", 8),
    ("MG_MESH_AXIS__EXPLICIT", 0), ("MG_MESH_AXIS__AUTO", 1),
    # The runtime's own constants keep their values beside all of them.
    ("MESHGEN_AXIS_EXPLICIT != MESHGEN_AXIS_AUTO", 1),
    # Run-time values through the tables: each symbol is its own mesh's.
    ("(int)sizeof x__groups__y_groups_z / (int)sizeof x__groups__y_groups_z[0]", 4),
    ("(int)sizeof x_groups_y__groups__z[0] / (int)sizeof(int32_t)", 8),
    ("x_mesh.n_axes", 2), ("x_mesh_mesh.n_axes", 2), ("x_mesh_axis_mesh.n_axes", 1),
    ("a_mesh.axes[0].size", 8), ("x_groups_y_mesh.axes[0].size", 8),
    ("x_mesh_mesh.axes[1].size", 2), ("pair_mesh.axes[1].size", 4),
    ("pair_mesh.shardings[1].n_dims", 2),
    ("mg_mesh.axes[0].type == MESHGEN_AXIS_EXPLICIT", 1),
    ("mg_mesh.axes[1].type == MESHGEN_AXIS_AUTO", 1),
]


def refused(meshgen, d, checks):
    for name, text, check, where in REFUSED:
        mgtest.write(os.path.join(d, name), "meshgen: 1\n" + text)
        p = mgtest.meshgen(meshgen, "validate", "--inventory", INV, name, cwd=d, text=True)
        want = f"{name}:{where}: error:"
        checks.check(p.returncode == 1 and want in p.stderr and f"[{check}]" in p.stderr,
                    f"{name}: expected exit 1 with {want} ... [{check}], got exit "
                    f"{p.returncode}: {p.stderr.strip()}")


def program(cxx=False):
    lines = ["#include <stdio.h>", "#include <stdint.h>"]
    lines += [f'#include "{n}_mesh.h"' for n in ACCEPTED]
    # Every constant expression also at compile time.
    assert_kw = "static_assert" if cxx else "_Static_assert"
    lines += [f'{assert_kw}(({e}) == {v}, "{e}");' for e, v in CHECKS if "mesh." not in e]
    lines.append("int main(void)\n{\n    int bad = 0;")
    for e, v in CHECKS:
        lines.append(f'    if (({e}) != {v}) {{ printf("%s is %ld, not {v}\\n", "{e}", '
                     f'(long)({e})); bad = 1; }}')
    lines.append('    printf("%d checks\\n", ' + str(len(CHECKS)) + ');\n    return bad;\n}')
    return "\n".join(lines) + "\n"


def cxx_pass(cc, include, out, runtime_srcs, d, srcs, checks):
    """The same program as C++17, linked with the tables and the runtime
    compiled as C."""
    cxx = mgtest.cxx_beside(cc)
    if cxx is None:
        print(f"no C++ compiler beside {cc}: the C++ pass is skipped")
        return
    main_cpp = mgtest.write(os.path.join(d, "main.cpp"), program(cxx=True))
    objs = []
    for src in srcs + runtime_srcs:
        obj = os.path.join(d, os.path.basename(src) + ".o")
        p = mgtest.run([cc, "-std=c11", "-I", include, "-I", out, "-c", src, "-o", obj], text=True)
        if not checks.check(p.returncode == 0, f"{cc} -c {src}:\n{p.stderr}"):
            return
        objs.append(obj)
    exe = os.path.join(d, "names_cxx")
    p = mgtest.run([cxx, "-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I",
                    include, "-I", out, "-o", exe, main_cpp] + objs, text=True)
    if not checks.check(p.returncode == 0,
                       f"{cxx}: the generated headers do not build as C++17:\n{p.stderr}"):
        return
    p = mgtest.run([exe], text=True)
    if checks.check(p.returncode == 0 and f"{len(CHECKS)} checks" in p.stdout,
                   f"the C++ program found wrong values:\n{p.stdout}"):
        print(f"C++17 ({cxx}): the headers build and the values hold")


def main():
    meshgen, include, cc = sys.argv[1:4]
    runtime_srcs = sys.argv[4:]
    checks = mgtest.Checks("names")
    with mgtest.tempdir("names") as d:
        refused(meshgen, d, checks)
        out = os.path.join(d, "out")
        os.mkdir(out)
        for name, text in ACCEPTED.items():
            spec = mgtest.write(os.path.join(d, name + ".yaml"),
                                f"meshgen: 1\nname: {name}\n" + text)
            p = mgtest.meshgen(meshgen, "generate", "--inventory", INV, "--groups", "always", spec,
                               "-o", out, text=True)
            checks.check(p.returncode == 0,
                        f"{name}: generate exit {p.returncode}: {p.stderr.strip()}")
        if not checks.fails:
            main_c = mgtest.write(os.path.join(d, "main.c"), program())
            exe = os.path.join(d, "names")
            srcs = [os.path.join(out, n + "_mesh.c") for n in ACCEPTED]
            p = mgtest.run([cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                            "-I", include, "-I", out, "-o", exe, main_c] + runtime_srcs + srcs,
                           text=True)
            if checks.check(p.returncode == 0,
                           f"{cc}: the meshes do not build into one program:\n{p.stderr}"):
                p = mgtest.run([exe], text=True)
                checks.check(p.returncode == 0 and f"{len(CHECKS)} checks" in p.stdout,
                            f"the program found wrong values:\n{p.stdout}")
                cxx_pass(cc, include, out, runtime_srcs, d, srcs, checks)
    return checks.done(f"{len(REFUSED)} refused, {len(ACCEPTED)} meshes in one program, "
                      f"{len(CHECKS)} values")


if __name__ == "__main__":
    sys.exit(main())
