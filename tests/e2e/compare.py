#!/usr/bin/env python3
"""Holds what the runtime answers over generated tables (the checker's
JSON) against `meshgen resolve` on the same spec and inventory: the mesh
order, every device's coordinates (mixed radix of its position) and, on
TPU meshes, its chip's coordinates and core, every
process's devices and stage, and every stage's devices."""
import json
import subprocess
import sys


def main():
    meshgen, checker, spec, inventory = sys.argv[1:5]
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
    if fails:
        print("\n".join("FAIL: " + f for f in fails[:20]))
        sys.exit(1)
    print(f"e2e: ok ({len(resolved['mesh'])} devices, {len(rp)} processes, "
          f"{len(got['shards'])} shardings tile their arrays)")


if __name__ == "__main__":
    main()
