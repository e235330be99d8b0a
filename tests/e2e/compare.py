#!/usr/bin/env python3
"""Holds what the runtime answers over generated tables (the checker's
JSON) against `meshgen resolve` on the same spec and inventory: the mesh
order, every device's coordinates (mixed radix of its position), every
process's devices and stage, and every stage's devices."""
import json
import subprocess
import sys


def main():
    meshgen, checker, spec, inventory = sys.argv[1:5]
    resolved = json.loads(subprocess.run([meshgen, "resolve", spec, "--inventory", inventory],
                                         check=True, capture_output=True).stdout)
    got = json.loads(subprocess.run([checker], check=True, capture_output=True).stdout)
    sizes = [a["size"] for a in resolved["axes"]]
    fails = []
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
    if fails:
        print("\n".join("FAIL: " + f for f in fails[:20]))
        sys.exit(1)
    print(f"e2e: ok ({len(resolved['mesh'])} devices, {len(rp)} processes)")


if __name__ == "__main__":
    main()
