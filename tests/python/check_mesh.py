#!/usr/bin/env python3
"""python.mesh.*: the meshgen Python module on one spec, against meshgen
and the runtime.

Usage: check_mesh.py MESHGEN DUMP SPEC [--golden RESOLVE_JSON]

- meshgen.resolve(SPEC) runs MESHGEN and gives back exactly the document
  that `MESHGEN resolve SPEC` prints; a golden resolve.json, read with
  meshgen.load(), gives the same Mesh;
- every answer of the module that the runtime also gives, over the tables
  generated from the same spec (DUMP, tests/python/runtime_dump.c): the
  mesh, each device's process and stage, the group number, rank and
  members along every set of axes, and every sharding's slice and replica
  id on every device;
- with the stand-in JAX and PyTorch of tests/python/standins: jax_mesh()
  holds jax.devices()[id] at each position (the stand-in's Device.id is
  not the position), with the spec's names and axis types; partition_spec
  and named_sharding give each sharding's PartitionSpec; torch_device_mesh
  holds each device's rank at its coordinates on every rank, sets each
  rank's device to its local index, and is refused with a message when the
  mesh has several devices per process.
"""
import json
import os
import subprocess
import sys

# The tests import the module from the source tree, which they never write to.
sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, os.pardir, os.pardir, "python"),
                os.path.join(HERE, "standins")]

import jax  # noqa: E402  (the stand-in)
import meshgen  # noqa: E402
import torch  # noqa: E402  (the stand-in)

FAILS = []


def expect(what, got, want):
    if got != want:
        FAILS.append(f"{what}: the module says {_short(got)}, expected {_short(want)}")


def _short(x):
    text = repr(x)
    return text if len(text) < 300 else text[:300] + "..."


def index_as_runtime(index, shape):
    """A JAX-style index (slices) as the runtime's start and size."""
    start, size = [], []
    for sl, n in zip(index, shape):
        a = 0 if sl.start is None else sl.start
        b = n if sl.stop is None else sl.stop
        start.append(a)
        size.append(b - a)
    return start, size


def check_runtime(m, dump):
    expect("the mesh", list(m.device_ids), dump["mesh"])
    expect("each position's process", [m.process_of(d) for d in m.device_ids], dump["process"])
    expect("each position's stage", [m.stage_of(d) for d in m.device_ids], dump["stage"])
    for g in dump["groups"]:
        axes = [n for a, n in enumerate(m.axis_names) if g["mask"] >> a & 1]
        what = f"along {'+'.join(axes)}"
        got = [m.group_index(d, axes) for d in m.device_ids]
        expect(f"group numbers {what}", [x[0] for x in got], g["index"])
        expect(f"ranks in their groups {what}", [x[1] for x in got], g["rank"])
        expect(f"the groups {what}", [list(x) for x in m.groups(axes)], g["members"])
        expect(f"device 0's group {what}", list(m.group(m.device_ids[0], axes)),
               g["members"][g["index"][0]])
    for name, sh in dump["shards"].items():
        shape = sh["global"]
        for pos, (d, want) in enumerate(zip(m.device_ids, sh["devices"])):
            s = m.shard(name, d, shape)
            start, size = index_as_runtime(s.index, shape)
            got = {"replica": s.replica_id, "start": start, "size": size}
            if got != want:
                expect(f"sharding {name}, device {d} (position {pos})", got, want)
                break
        if m.shardings[name].shape is not None:
            expect(f"sharding {name} with its own shape",
                   m.shard(name, m.device_ids[-1]), m.shard(name, m.device_ids[-1], shape))


def check_jax(m):
    devices = jax.devices_for(m.document)
    jax.set_devices(devices)
    jm = m.jax_mesh()
    expect("jax_mesh's axis names", jm.axis_names, m.axis_names)
    expect("jax_mesh's axis types", [t.name.lower() for t in jm.axis_types], list(m.axis_types))
    expect("jax_mesh's shape", jm.shape, m.shape)
    expect("jax_mesh's devices", [x.id for x in jm.devices.flat],
           [devices[d].id for d in m.device_ids])
    for name, s in m.shardings.items():
        want = tuple(None if dim is None else dim[0] if len(dim) == 1 else tuple(dim)
                     for dim in s.spec)
        expect(f"partition_spec({name})", tuple(m.partition_spec(name)), want)
        ns = m.named_sharding(name, jm)
        expect(f"named_sharding({name}).mesh", ns.mesh is jm, True)
        expect(f"named_sharding({name}).spec", tuple(ns.spec), want)


def check_torch(m):
    one_each = all(len(p.devices) == 1 for p in m.processes)
    ranks = [[m.process_of(d) for d in m.device_ids]]
    for rank in range(len(m.processes)):
        torch.distributed.init(len(m.processes), rank)
        host = m.devices[m.processes[rank].devices[0]].host
        torch.cuda.reset(sum(1 for d in m.devices if d.host == host))
        try:
            dm = m.torch_device_mesh("cuda")
        except meshgen.Error as e:
            if one_each:
                FAILS.append(f"torch_device_mesh on rank {rank}: {e}")
            elif "holds" not in str(e) or "processes: device" not in str(e):
                FAILS.append(f"torch_device_mesh's refusal does not say why: {e}")
            return
        if not one_each:
            FAILS.append("torch_device_mesh accepts a mesh of several devices per process")
            return
        flat = _flatten(dm.mesh.tolist())
        expect(f"the DeviceMesh's ranks (rank {rank})", [flat], ranks)
        expect("the DeviceMesh's shape", dm.shape, m.axis_sizes)
        expect("the DeviceMesh's dimension names", dm.mesh_dim_names, m.axis_names)
        local = m.devices[m.processes[rank].devices[0]].local
        expect(f"the device set for rank {rank}", torch.cuda.calls, [local])
        expect(f"torch_device({rank})", m.torch_device(rank), local)
    torch.distributed.destroy()


def _flatten(x):
    return [v for item in x for v in _flatten(item)] if isinstance(x, list) else [x]


def main():
    args = sys.argv[1:]
    golden = None
    if "--golden" in args:
        k = args.index("--golden")
        golden = args[k + 1]
        del args[k:k + 2]
    exe, dump_exe, spec = args
    cli = json.loads(subprocess.run([exe, "resolve", spec], check=True,
                                    capture_output=True).stdout)
    m = meshgen.resolve(spec, executable=exe)
    expect("the document resolve() read", m.document, cli)
    if golden:
        g = meshgen.load(golden)
        for attr in ("axes", "hosts", "devices", "device_ids", "processes", "shardings"):
            expect(f"load({os.path.basename(golden)}).{attr}", getattr(g, attr),
                   getattr(m, attr))
    dump = json.loads(subprocess.run([dump_exe], check=True, capture_output=True).stdout)
    check_runtime(m, dump)
    check_jax(m)
    check_torch(m)
    if FAILS:
        print("\n".join("FAIL: " + f for f in FAILS[:20]))
        sys.exit(1)
    print(f"python: {m.name}: {m.size} devices, {len(m.processes)} processes, "
          f"{len(dump['groups'])} sets of axes, {len(dump['shards'])} shardings agree with "
          "meshgen resolve and the runtime")


if __name__ == "__main__":
    main()
