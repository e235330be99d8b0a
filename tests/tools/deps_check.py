#!/usr/bin/env python3
"""The generator's layering, from its object files (test arch.deps).

Usage: deps_check.py --nm NM --header GEN_H --source DIR LIBRARY.a MAIN.o

nm lists what each object of the generator library defines and what it
needs; every undefined symbol is mapped to the object that defines it, which
gives the graph of which file uses which. The test fails, naming the files,
on:
- any cycle between files (the cycle is printed): the pipeline only goes
  forward (docs/architecture.md);
- a file that uses one it must not: only topology.o (and the device rules it
  shares with the runtime, hwloc_devices.o) references hwloc_*, only
  yaml_load.o references yaml_*; what compile.o runs (the resolver, the
  checks, the planner and its locality order) uses only the shared pieces
  below it, so none of them uses another or calls back up (the planner
  alone uses the locality order); topology.o never uses inventory.o; an
  emitter uses only the shared pieces (arena, buffer, diagnostics, words,
  the JSON writer, mesh arithmetic) and the lowering, never a loader, a
  check or the planner; the lowering uses only the arena;
- the C emitter or env.o not using the lowering: the tables a program links
  and those `meshgen env` hands the runtime come from one function;
- main.o using a function of the library that the public header does not
  declare: the command line is a user of the public API like any other;
- a unit test or fuzz target that includes a header of gen/ other than the
  internal one (internal.h), or a benchmark that includes any.
"""
import argparse
import glob
import os
import re
import sys

import mgtest

# Objects an emitter may use: the shared pieces and the lowering (the model
# as the runtime's tables), nothing that loads, checks or plans.
EMITTER_MAY_USE = {"arena", "buf", "escape", "diag", "words", "json", "mesh_math", "emit_grid", "lower"}

# What compile.c runs, and what each of them may use: the shared pieces
# below the compile stage. So the resolver (which decides), the checks
# (which judge) and the planner (which places) never use one another or
# anything above them; compile.c alone calls all three.
COMPILE_SHARED = {"arena", "buf", "diag", "words", "cident", "mesh_math", "tpu", "tpu_assign",
                  "sha256", "suggest"}
COMPILE_STAGE_MAY_USE = {
    "resolve": COMPILE_SHARED,
    "check": COMPILE_SHARED,
    "plan": COMPILE_SHARED | {"locality"},
    "locality": COMPILE_SHARED,
}

# The lowering copies the model into the runtime's structs: it allocates, and
# uses nothing else of the generator.
LOWER_MAY_USE = {"arena"}

# Pairs (user, used) that must appear: the C emitter prints the lowered
# tables and `meshgen env` hands the same ones to the runtime.
REQUIRED = {
    ("emit_c", "lower"): "the C emitter prints the tables mg_lower builds",
    ("env", "lower"): "meshgen env asks the runtime about the tables mg_lower builds",
}

# Pairs (user, used) that must never appear, whatever else changes.
FORBIDDEN = {
    ("topology", "inventory"): "inventory.c calls topology.c, never the reverse",
}

# External libraries and the only objects allowed to reference them.
LIBRARY_OWNERS = {"hwloc_": {"topology", "hwloc_devices"}, "yaml_": {"yaml_load"}}


def object_name(member):
    """"check.c.o" -> "check"."""
    base = os.path.basename(member)
    for suffix in (".c.o", ".o", ".obj"):
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base


def symbols(nm, path):
    """{object: (defined globals, undefined)} from `nm -A -P`."""
    r = mgtest.run([nm, "-A", "-P", path], text=True)
    if r.returncode != 0:
        mgtest.die(f"{nm} {path}: exit {r.returncode}: {r.stderr}")
    out = r.stdout
    objs = {}
    for line in out.splitlines():
        m = re.match(r"^(.*?)(?:\[(.*?)\])?: (\S+) (\S)", line)
        if not m:
            continue
        obj = object_name(m.group(2) or m.group(1))
        name, kind = m.group(3), m.group(4)
        defined, undefined = objs.setdefault(obj, (set(), set()))
        if kind == "U":
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return objs


def cycles(graph):
    """The strongly connected components of more than one object (Tarjan),
    each as one concrete cycle through them."""
    index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    result = []
    for comp in comps:
        members, start = set(comp), min(comp)
        # A path back to the start inside the component.
        path, seen = [start], {start}

        def walk(v):
            for w in sorted(graph[v]):
                if w == start and len(path) > 1:
                    return True
                if w in members and w not in seen:
                    seen.add(w)
                    path.append(w)
                    if walk(w):
                        return True
                    path.pop()
            return False

        walk(start)
        result.append(path + [start])
    return result


def public_api(header):
    """The names the public header declares, with the headers of its own
    directory it includes (<meshgen/escape.h>): functions and extern
    objects."""
    text = open(header, encoding="utf-8").read()
    for name in re.findall(r"^\s*#\s*include\s*<meshgen/(\w+\.h)>", text, flags=re.M):
        path = os.path.join(os.path.dirname(header), name)
        if os.path.exists(path):
            text += open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    names = set(re.findall(r"\b(mg_\w+)\s*\(", text))
    names |= set(re.findall(r"\bextern\b[^;]*?\b(mg_\w+)\s*;", text))
    return names


# The one header of gen/ the unit tests and fuzz targets may include: the
# library's internal API. The benchmarks drive the built tool and include
# none.
INTERNAL_HEADER = "internal.h"


def private_includes(source):
    """(file, header) for each header of gen/ a test, fuzz target or
    benchmark includes that it may not."""
    private = {os.path.basename(p) for p in glob.glob(os.path.join(source, "gen", "*.h"))}
    found = []
    for pattern, allowed in (("tests/unit/*.[ch]", {INTERNAL_HEADER}),
                             ("tests/e2e/*.[ch]", {INTERNAL_HEADER}),
                             ("fuzz/*.[ch]", {INTERNAL_HEADER}), ("bench/*.[ch]", set())):
        for path in sorted(glob.glob(os.path.join(source, pattern))):
            for line in open(path, encoding="utf-8", errors="replace"):
                m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                if m and os.path.basename(m.group(1)) in private - allowed:
                    found.append((os.path.relpath(path, source), m.group(1)))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--header", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("library")
    ap.add_argument("main")
    args = ap.parse_args()

    objs = symbols(args.nm, args.library)
    main_objs = symbols(args.nm, args.main)
    owner = {}
    for obj, (defined, _) in objs.items():
        for name in defined:
            owner[name] = obj
    graph = {obj: set() for obj in objs}
    for obj, (_, undefined) in objs.items():
        for name in undefined:
            if name in owner and owner[name] != obj:
                graph[obj].add(owner[name])

    errors = []
    for cycle in cycles(graph):
        errors.append("cycle between files: " + " -> ".join(c + ".o" for c in cycle))
    for (user, used), why in sorted(FORBIDDEN.items()):
        if used in graph.get(user, ()):
            names = sorted(n for n in objs[user][1] if owner.get(n) == used)
            errors.append(f"{user}.o uses {used}.o ({', '.join(names)}): {why}")
    for obj, may_use in sorted(COMPILE_STAGE_MAY_USE.items()):
        if obj not in graph:
            errors.append(f"{obj}.o is missing from the library: the layering names it")
            continue
        for used in sorted(graph[obj] - may_use):
            names = sorted(n for n in objs[obj][1] if owner.get(n) == used)
            errors.append(f"{obj}.o uses {used}.o ({', '.join(names)}): compile.c alone runs "
                          "the resolver, the checks and the planner, and none of them calls "
                          "another or back up")
    for (user, used), why in sorted(REQUIRED.items()):
        if used not in graph.get(user, ()):
            errors.append(f"{user}.o does not use {used}.o: {why}")
    for used in sorted(graph.get("lower", set()) - LOWER_MAY_USE):
        names = sorted(n for n in objs["lower"][1] if owner.get(n) == used)
        errors.append(f"lower.o uses {used}.o ({', '.join(names)}): the lowering only copies "
                      "the model into the runtime's tables")
    for obj in sorted(objs):
        if obj.startswith("emit_"):
            for used in sorted(graph[obj] - EMITTER_MAY_USE):
                names = sorted(n for n in objs[obj][1] if owner.get(n) == used)
                errors.append(f"{obj}.o uses {used}.o ({', '.join(names)}): an emitter only "
                              "formats the model")
        for prefix, owners in LIBRARY_OWNERS.items():
            refs = sorted(n for n in objs[obj][1] if n.startswith(prefix))
            if refs and obj not in owners:
                errors.append(f"{obj}.o references {prefix}* ({', '.join(refs[:3])}): only "
                              f"{' and '.join(o + '.o' for o in sorted(owners))} may")
    api = public_api(args.header)
    for obj, (_, undefined) in main_objs.items():
        for name in sorted(undefined):
            if name in owner and name not in api:
                errors.append(f"{obj}.o uses {name} ({owner[name]}.o), which the public header "
                              "does not declare")
    for path, header in private_includes(args.source):
        errors.append(f"{path} includes the private header \"{header}\"; use \"{INTERNAL_HEADER}\" "
                      "(tests, fuzz targets) or <meshgen/gen.h>")

    checks = mgtest.Checks("dependencies")
    for e in errors:
        checks.fail(e)
    edges = sum(len(v) for v in graph.values())
    return checks.done(f"{len(objs)} objects, {edges} uses between them")


if __name__ == "__main__":
    sys.exit(main())
