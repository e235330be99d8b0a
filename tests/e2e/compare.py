#!/usr/bin/env python3
"""Holds what the runtime answers over generated tables (the checker's
JSON) against `meshgen resolve` on the same spec and inventory: the mesh
order, every device's coordinates (mixed radix of its position) and, on
TPU meshes, its chip's coordinates and core, every process's devices and
stage, and every stage's devices.

Both sides come from the same plan, so a wrong plan would pass that
comparison. An optional sixth argument names a JSON file of expectations
worked out by hand from docs/reference.md's rules and reference results
(tests/e2e/expect/), which the runtime's answers must also meet; see
check_expected() for its keys."""
import json
import os
import subprocess
import sys


def flatten(x):
    """A mesh as the docs write it, nested by axis, as a flat list."""
    return [v for item in x for v in flatten(item)] if isinstance(x, list) else [x]


def check_expected(path, got, resolved):
    """The runtime's answers (and resolve's ici/dcn) against the
    expectations: "mesh" (nested as the docs write it, flattened here),
    "ici" and "dcn" (per axis), "coords" ({device: coordinates}), "stages"
    (each stage's devices), "groups" ({axis: the groups' members, by group
    number}), "shards" ({sharding: {device: {"start", "size"}}}) and
    "replicas" ({sharding: replica id of device 0, 1, ...})."""
    want = json.load(open(path))
    fails = []
    names = [a["name"] for a in got["axes"]]

    def expect(what, have, should):
        if have != should:
            fails.append(f"{os.path.basename(path)}: {what} is {have}, the reference says "
                         f"{should}")

    if "mesh" in want:
        expect("the mesh", got["mesh"], flatten(want["mesh"]))
    for key in ("ici", "dcn"):
        if key in want:
            expect(key, [a[key] for a in got["axes"]], want[key])
            expect(f"resolve's {key}", [a[key] for a in resolved["axes"]], want[key])
    for dev, coords in want.get("coords", {}).items():
        expect(f"the coordinates of device {dev}", got["coords"].get(dev), coords)
    if "stages" in want:
        expect("the stages", got["stages"], want["stages"])
    for axis, groups in want.get("groups", {}).items():
        by_number = {}
        for e in got["groups"][names.index(axis)]:
            by_number[e["group"]] = e["members"]
        expect(f"the {axis} groups", [by_number[g] for g in sorted(by_number)], groups)
    for sname, devices in want.get("shards", {}).items():
        held = {str(e["device"]): {"start": e["start"], "size": e["size"]}
                for e in got["shards"][sname]["devices"]}
        for dev, slc in devices.items():
            expect(f"{sname}'s slice of device {dev}", held.get(dev), slc)
    for sname, replicas in want.get("replicas", {}).items():
        rep = {e["device"]: e["replica"] for e in got["shards"][sname]["devices"]}
        expect(f"{sname}'s replica ids", [rep.get(d) for d in range(len(replicas))], replicas)
    return fails


def main():
    meshgen, checker, spec, inventory = sys.argv[1:5]
    expected = sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else None
    cmd = [meshgen, "resolve", spec] + (["--inventory", inventory] if inventory else [])
    resolved = json.loads(subprocess.run(cmd, check=True, capture_output=True).stdout)
    got = json.loads(subprocess.run([checker], check=True, capture_output=True).stdout)
    sizes = [a["size"] for a in resolved["axes"]]
    fails = []
    # TPU meshes: each device's chip coordinates and core, as resolve has them.
    want_tpu = [d["coords"] + [d["core_on_chip"]] for d in resolved["devices"]
                if d["kind"] == "tpu"]
    if got["tpu"] != want_tpu:
        fails.append(f"tpu coords {got['tpu']} != resolve {want_tpu}")
    # Every device's description strings: the tables' (the runtime's
    # meshgen_device_info) against resolve's, "" where resolve has null.
    fields = ("pci", "vendor", "model", "uuid", "cpuset")
    want_desc = [[d[f] or "" for f in fields] for d in resolved["devices"]]
    if got["descriptions"] != want_desc:
        bad = next(i for i, (g, w) in enumerate(zip(got["descriptions"], want_desc)) if g != w) \
            if len(got["descriptions"]) == len(want_desc) else "count"
        fails.append(f"device descriptions differ from resolve's (first at device {bad})")
    if got["mesh"] != resolved["mesh"]:
        fails.append(f"mesh order {got['mesh']} != resolve {resolved['mesh']}")
    for pos, dev in enumerate(resolved["mesh"]):
        coords, rest = [], pos
        for s in reversed(sizes):
            coords.insert(0, rest % s)
            rest //= s
        if got["coords"].get(str(dev)) != coords:
            fails.append(f"device {dev}: coords {got['coords'].get(str(dev))} != {coords}")
    rp = [(p["id"], p["host"], p["devices"]) for p in resolved["processes"]]
    gp = [(p["id"], p["host"], p["devices"]) for p in got["processes"]]
    if rp != gp:
        fails.append(f"processes {gp} != resolve {rp}")
    mpmd = resolved["mpmd"]
    if mpmd is not None:
        k = [a["name"] for a in resolved["axes"]].index(mpmd)
        for p in resolved["processes"]:
            g = next(x for x in got["processes"] if x["id"] == p["id"])
            if g["stage"] != p["stage"]:
                fails.append(f"process {p['id']}: stage {g['stage']} != resolve {p['stage']}")
        want = [[] for _ in range(sizes[k])]
        for pos, dev in enumerate(resolved["mesh"]):
            stride = 1
            for s in sizes[k + 1:]:
                stride *= s
            want[(pos // stride) % sizes[k]].append(dev)
        if got["stages"] != want:
            fails.append(f"stages {got['stages']} != {want}")
    # Groups along each axis: the devices that differ from d only on that
    # axis, in mesh order, numbered row-major over the other axes.
    n_axes = len(sizes)
    coords_of = {}
    for pos, dev in enumerate(resolved["mesh"]):
        c, rest = [], pos
        for s in reversed(sizes):
            c.insert(0, rest % s)
            rest //= s
        coords_of[dev] = c
    at = {tuple(c): dev for dev, c in coords_of.items()}
    for k in range(n_axes):
        for entry in got["groups"][k]:
            c = coords_of[entry["device"]]
            members = [at[tuple(c[:k] + [j] + c[k + 1:])] for j in range(sizes[k])]
            group, mult = 0, 1
            for a in reversed(range(n_axes)):
                if a != k:
                    group += c[a] * mult
                    mult *= sizes[a]
            if (entry["members"], entry["group"], entry["rank"]) != (members, group, c[k]):
                fails.append(f"axis {k} group of {entry['device']}: {entry} != "
                             f"{(members, group, c[k])}")
    # Shards: each device's slice follows PartitionSpec, and all slices tile
    # the array, every element held by exactly n / shards devices with
    # replica ids 0.. once each.
    names = [a["name"] for a in resolved["axes"]]
    for sname, sh in got["shards"].items():
        spec = resolved["shardings"][sname]["spec"]
        glob = sh["global"]
        shards = [1] * len(glob)
        for d, axes in enumerate(spec):
            for ax in axes or []:
                shards[d] *= sizes[names.index(ax)]
        total = 1
        for s in shards:
            total *= s
        replicas = len(resolved["mesh"]) // total
        held = {}
        for e in sh["devices"]:
            c = coords_of[e["device"]]
            want_start = []
            for d, axes in enumerate(spec):
                idx = 0
                for ax in axes or []:
                    idx = idx * sizes[names.index(ax)] + c[names.index(ax)]
                want_start.append(idx * (glob[d] // shards[d]))
            want_size = [glob[d] // shards[d] for d in range(len(glob))]
            if e["start"] != want_start or e["size"] != want_size:
                fails.append(f"{sname}: device {e['device']} holds {e['start']}+{e['size']}, "
                             f"expected {want_start}+{want_size}")
            held.setdefault(tuple(e["start"]), []).append(e["replica"])
        if len(held) != total:
            fails.append(f"{sname}: {len(held)} distinct slices, expected {total}")
        for start, reps in held.items():
            if sorted(reps) != list(range(replicas)):
                fails.append(f"{sname}: slice {start} has replica ids {sorted(reps)}, "
                             f"expected 0..{replicas - 1}")
    if expected:
        fails += check_expected(expected, got, resolved)
    if fails:
        print("\n".join("FAIL: " + f for f in fails[:20]))
        sys.exit(1)
    print(f"e2e: ok ({len(resolved['mesh'])} devices, {len(rp)} processes, "
          f"{len(got['shards'])} shardings tile their arrays"
          f"{', as the reference says' if expected else ''})")


if __name__ == "__main__":
    main()
