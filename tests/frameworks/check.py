#!/usr/bin/env python3
"""The meshgen Python module against the real JAX and PyTorch
(tests/frameworks/README.md; run.sh runs every part).

Usage:
  check.py prepare DIR MESHGEN   resolve every case into DIR/cases.json (needs
                                 meshgen, neither framework)
  check.py jax-cpu DIR N         JAX on N forced CPU devices (XLA_FLAGS set by
                                 the caller: XLA reads it once per process)
  check.py jax-procs DIR         two JAX processes of 4 CPU devices each
  check.py jax-gpu DIR           JAX on this machine's GPUs
  check.py torch DIR W...        PyTorch's fake process group, world sizes W
  check.py torch-gpu DIR         one rank, a real CUDA device
  check.py mesh-utils DIR        meshes against jax mesh_utils

Every part reads the resolved meshes from DIR/cases.json through
meshgen.load(), so the machine with the frameworks needs no meshgen
executable (nor libyaml, nor hwloc). Each part prints `TALLY part:
key=value ...`, one `FAIL: ...` line per disagreement (the first 20), and
exits 1 when there was one.

What is compared, always with meshgen's own answers (Mesh.coords, group,
group_index, shard, process_of), never with a second copy of its rules:
- jax: jax_mesh() puts jax.devices()[d] at each position d of the mesh
  (by position: ids are not positions across processes), with the axis
  names, sizes and AxisTypes; for every sharding, NamedSharding's
  devices_indices_map and device_put(...).addressable_shards (index,
  replica_id, the data itself) against Mesh.shard; the mismatch errors;
- torch: on every rank of the fake world, the DeviceMesh's rank tensor and
  coordinate, every dimension's group (get_group, get_local_rank), every
  sub-mesh over a set of dimensions, and every _flatten() of one, against
  Mesh.group;
- mesh-utils: the mesh of every case in inventory or torus order against
  create_hybrid_device_mesh / create_device_mesh over stand-in device
  records that carry the inventory's processes, granules and TPU chips.
"""
import itertools
import json
import math
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

# The tests import the module from the source tree, which they never write to.
sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(ROOT, "python"))

import meshgen  # noqa: E402

FAILS = []
TALLY = {}
START = time.time()
AXES = ("dp", "fsdp", "tp")
# Sharded meshes take these in turn; Manual axes (shard_map's) get meshes
# of their own, without shardings, since device_put outside shard_map is
# not what they are for.
TYPES = ("explicit", "auto")


def fail(msg):
    FAILS.append(msg)


def count(key, n=1):
    TALLY[key] = TALLY.get(key, 0) + n


def finish(part):
    print(f"TALLY {part}: " + " ".join(f"{k}={v}" for k, v in sorted(TALLY.items()))
          + f" ({time.time() - START:.1f} s)")
    for f in FAILS[:20]:
        print("FAIL: " + f)
    if len(FAILS) > 20:
        print(f"FAIL: ... and {len(FAILS) - 20} more")
    sys.exit(1 if FAILS else 0)


# ---- prepare: the cases, resolved by meshgen ------------------------------------------


def factorizations(n, most=3):
    """Ordered factorizations of n into 1..most factors of at least 2."""
    out = []

    def rec(rest, prefix):
        if rest == 1 and prefix:
            out.append(prefix)
            return
        if len(prefix) == most:
            return
        for f in range(2, rest + 1):
            if rest % f == 0:
                rec(rest // f, prefix + [f])
    rec(n, [])
    return out or [[n]]


def shardings_for(shape):
    """Shardings over the axes of a shape: each axis alone, the first and
    last together in both orders, two axes on two dimensions in reverse,
    everything on one dimension, and one dimension left whole; each with a
    global shape of twice the shard count (3 for whole dimensions)."""
    names = AXES[:len(shape)] if len(shape) <= 3 else tuple(f"a{i}" for i in range(len(shape)))
    size = dict(zip(names, shape))
    specs = [[n] for n in names]
    if len(names) >= 2:
        specs += [[[names[0], names[-1]]], [[names[-1], names[0]]], [None, names[-1], names[0]],
                  [list(names)]]
    specs.append([None])
    out = {}
    for k, spec in enumerate(specs):
        dims = []
        for d in spec:
            axes = [] if d is None else ([d] if isinstance(d, str) else d)
            dims.append(2 * math.prod(size[a] for a in axes) if axes else 3)
        out[f"s{k}"] = {"spec": spec, "shape": dims}
    return names, out


def spec_text(name, names, shape, *, types=None, dcn=None, mpmd=None, processes=None,
              devices=None, kind=None, order=None, granule=None, inventory=None, shardings=None):
    """A mesh spec as YAML text (flow style: JSON is YAML)."""
    mesh = {"axes": list(names), "shape": list(shape)}
    for key, value in (("types", types), ("dcn", dcn), ("mpmd", mpmd),
                       ("processes", processes), ("devices", devices), ("device_kind", kind),
                       ("order", order), ("granule", granule)):
        if value is not None:
            mesh[key] = value
    doc = {"meshgen": 1, "name": name, "mesh": mesh}
    if inventory is not None:
        doc["inventory"] = inventory
    if shardings:
        doc["shardings"] = shardings
    return json.dumps(doc, indent=1) + "\n"


class Preparer:
    def __init__(self, meshgen_exe, tmp):
        self.exe, self.tmp, self.n = meshgen_exe, tmp, 0
        self.cases = {}

    def inventory(self, hosts, per_host, slices=None, topology=None):
        """An inventory YAML of `hosts` hosts h000.. in order, each with
        per_host cores (synthetic) or the given topology file."""
        self.n += 1
        path = os.path.join(self.tmp, f"inv{self.n}.yaml")
        lines = ["meshgen-inventory: 1", "hosts:"]
        groups = slices or [hosts]
        first = 0
        for k, g in enumerate(groups):
            lines.append(f"  - names: h[{first:03d}-{first + g - 1:03d}]")
            if topology:
                lines.append(f"    topology: {json.dumps(topology)}")
            else:
                lines.append(f"    synthetic: \"pack:1 core:{per_host} pu:1\"")
            if slices:
                lines.append(f"    slice: s{k}")
            first += g
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def add(self, part, text, inventory=None, **extra):
        """Resolve one spec (text) and keep the document under `part`."""
        self.n += 1
        path = os.path.join(self.tmp, f"spec{self.n}.yaml")
        with open(path, "w") as f:
            f.write(text)
        m = meshgen.resolve(path, inventory, self.exe)
        case = {"name": f"{part}#{len(self.cases.get(part, []))} {m!r}", "doc": m.document}
        case.update(extra)
        self.cases.setdefault(part, []).append(case)
        return m

    def add_file(self, part, spec, inventory=None, **extra):
        m = meshgen.resolve(spec, inventory, self.exe)
        case = {"name": f"{part}: {os.path.relpath(spec, ROOT)}", "doc": m.document}
        case.update(extra)
        self.cases.setdefault(part, []).append(case)


def shuffled(doc, seed):
    """The same document with the mesh in another order (a fixed seed):
    any permutation is a valid mesh, and one other than 0, 1, 2, ... holds
    JAX to meshgen's positions where one-host CPU meshes never move."""
    d = json.loads(json.dumps(doc))
    random.Random(seed).shuffle(d["mesh"])
    return d


def prepare(out_dir, exe):
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        p = Preparer(os.path.abspath(exe), tmp)
        topo = os.path.join(ROOT, "tests", "data", "topo", "alternating-sockets.xml")
        # JAX on N forced CPU devices: one host of N cores, every shape of
        # up to three axes (the first 8), axis types in turn; the same
        # meshes shuffled; and a two-host mesh that must be refused.
        for n in (8, 16, 32, 64):
            inv = f"synthetic:pack:2 core:{n // 2} pu:1"
            for k, shape in enumerate(factorizations(n)[:8]):
                names, sh = shardings_for(shape)
                types = [TYPES[(k + i) % 2] for i in range(len(shape))]
                m = p.add(f"jax-cpu-{n}", spec_text(f"cpu{n}_{k}", names, shape, types=types,
                                                    kind="core", shardings=sh), inv)
                p.cases[f"jax-cpu-{n}"].append({"name": f"jax-cpu-{n} {m!r} shuffled",
                                                "doc": shuffled(m.document, n * 100 + k)})
            p.add(f"jax-cpu-{n}", spec_text(f"part{n}", ("dp", "tp"), (2, n // 4), devices=n // 2,
                                            kind="core"), f"synthetic:pack:2 core:{n} pu:1")
            p.add(f"jax-cpu-{n}", spec_text(f"manual{n}", ("dp", "tp"), (2, n // 2),
                                            types=["manual", "auto"], kind="core"), inv)
        p.add_file("jax-cpu-16", os.path.join(ROOT, "configs", "meshes", "two-host-dp-tp.yaml"),
                   expect_error="jax.devices() has 16 devices in 1 process; the mesh wants 16 "
                                "in 2: was jax.distributed.initialize called with 2 processes")
        # Two JAX processes of 4 CPU devices: two hosts of 4 cores.
        inv = p.inventory(2, 4)
        for shape, dcn in (((2, 4), (2, 1)), ((4, 2), (2, 1)), ((2, 4), (1, 2)), ((8,), (2,)),
                           ((2, 2, 2), (1, 2, 1)), ((2, 2, 2), None)):
            names, sh = shardings_for(shape)
            p.add("jax-procs", spec_text("procs", names, shape, dcn=dcn, kind="core",
                                         shardings=sh), inv)
        p.add("jax-procs", spec_text("per_device", ("dp", "tp"), (2, 4), processes="device",
                                     kind="core"), inv,
              expect_error="jax.devices() has 8 devices in 2 processes; the mesh wants 8 in 8")
        # The GPUs: a DGX-2's first n of 16 GPUs; the part takes the one
        # whose n is the machine's GPU count.
        dgx = os.path.join(ROOT, "tests", "data", "hwloc", "nvidiaDGX2.xml")
        for n, shape in ((1, (1,)), (2, (2,)), (4, (2, 2)), (8, (2, 4)), (16, (4, 4))):
            names, sh = shardings_for(shape)
            p.add("gpu", spec_text(f"gpu{n}", names, shape, devices=n, kind="gpu",
                                   shardings=sh), dgx, gpus=n)
        # PyTorch: one rank per device; one host, hosts of synthetic cores,
        # and hosts that locality order reorders (8 devices each), with an
        # MPMD axis where the shape allows.
        for w in (1, 2, 4, 8, 16, 32, 64):
            for k, shape in enumerate(factorizations(w)[:4]):
                names = AXES[:len(shape)]
                p.add(f"torch-{w}", spec_text(f"t{w}_{k}", names, shape, processes="device",
                                              kind="core"), f"synthetic:pack:1 core:{w} pu:1")
            for hosts in (2, 4):
                if w % hosts == 0 and w // hosts >= 2:
                    per = w // hosts
                    inv = p.inventory(hosts, per)
                    p.add(f"torch-{w}", spec_text(f"th{w}", ("pp", "dp", "tp"),
                                                  (hosts, 2, per // 2) if per % 2 == 0
                                                  else (hosts, 1, per), dcn=None, mpmd="pp",
                                                  processes="device", kind="core"), inv)
            if w >= 16:
                inv = p.inventory(w // 8, 8, topology=topo)
                p.add(f"torch-{w}", spec_text(f"alt{w}", ("dp", "fsdp", "tp"), (w // 8, 2, 4),
                                              processes="device"), inv)
        # mesh_utils: hosts and slices in inventory order, dcn given and
        # inferred, `devices: N`; the TPU configs in torus order.
        for hosts, per in ((2, 4), (4, 2), (4, 4), (8, 2), (2, 8)):
            inv = p.inventory(hosts, per)
            n = hosts * per
            for shape in factorizations(n, 2)[:4]:
                names = AXES[:len(shape)]
                p.add("mesh-utils", spec_text("mu", names, shape, kind="core", order="inventory",
                                              processes="host"), inv)
            p.add("mesh-utils", spec_text("mu", ("dp", "tp"), (hosts, per), dcn=[hosts, 1],
                                          kind="core", order="inventory"), inv)
            p.add("mesh-utils", spec_text("mu", ("dp", "tp"), (per, hosts), dcn=[1, hosts],
                                          kind="core", order="inventory"), inv)
        inv = p.inventory(4, 4, slices=[2, 2])
        p.add("mesh-utils", spec_text("mus", ("dp", "fsdp", "tp"), (2, 2, 4), dcn=[2, 1, 1],
                                      kind="core", order="inventory", granule="slice"), inv)
        p.add("mesh-utils", spec_text("mus", ("dp", "tp"), (4, 4), kind="core",
                                      order="inventory", granule="slice"), inv)
        p.add("mesh-utils", spec_text("mun", ("dp", "tp"), (2, 4), devices=8, kind="core",
                                      order="inventory"), inv)
        for cfg in ("v5p-128.yaml", "v5e-multislice.yaml"):
            p.add_file("mesh-utils", os.path.join(ROOT, "configs", "meshes", cfg))
        with open(os.path.join(out_dir, "cases.json"), "w") as f:
            json.dump({"meshgen": meshgen.__version__, "cases": p.cases}, f)
    print(f"prepared {sum(len(v) for v in p.cases.values())} cases in "
          f"{os.path.join(out_dir, 'cases.json')}: "
          + ", ".join(f"{k} {len(v)}" for k, v in sorted(p.cases.items())))


def load_cases(out_dir, part):
    with open(os.path.join(out_dir, "cases.json")) as f:
        data = json.load(f)
    if data["meshgen"] != meshgen.__version__:
        fail(f"cases.json was prepared by meshgen {data['meshgen']}, this module is "
             f"{meshgen.__version__}")
    return data["cases"].get(part, [])


# ---- JAX ------------------------------------------------------------------------------


def normal(index, shape):
    """An index (slices, maybe fewer than the dimensions) as (start, stop)
    pairs, so that slice(None) and slice(0, n) compare equal."""
    out = []
    for d, n in enumerate(shape):
        s = index[d] if d < len(index) else slice(None)
        start, stop, step = s.indices(n)
        out.append((start, stop, step))
    return tuple(out)


def check_jax_mesh(name, m, jm, devices):
    import jax

    position = {d.id: i for i, d in enumerate(devices)}
    got = [position[d.id] for d in jm.devices.flat]
    if got != list(m.device_ids):
        fail(f"{name}: the JAX mesh holds jax.devices() positions {got[:16]}..., meshgen's mesh "
             f"is {list(m.device_ids)[:16]}...")
    if tuple(jm.axis_names) != m.axis_names or tuple(jm.devices.shape) != m.axis_sizes:
        fail(f"{name}: JAX mesh axes {jm.axis_names} {jm.devices.shape}, meshgen "
             f"{m.axis_names} {m.axis_sizes}")
    types = tuple(getattr(jax.sharding.AxisType, t.capitalize()) for t in m.axis_types)
    if tuple(jm.axis_types) != types:
        fail(f"{name}: axis types {jm.axis_types}, meshgen {m.axis_types}")
    count("meshes")


def check_jax_shards(name, m, jm, devices, arrays):
    """Every sharding's shards: NamedSharding's map, then an array's
    addressable shards (made by `arrays(shape, sharding, data)`)."""
    import numpy as np

    position = {d.id: i for i, d in enumerate(devices)}
    for sname, s in m.shardings.items():
        shape = tuple(s.shape) if s.shape else tuple(2 * n for n in s.shards)
        shape = shape + (3,)  # one more dimension, past the spec: whole
        ns = m.named_sharding(sname, jm)
        if tuple(ns.spec) != tuple(m.partition_spec(sname)):
            fail(f"{name}/{sname}: NamedSharding's spec {ns.spec}")
        for dev, index in ns.devices_indices_map(shape).items():
            d = position[dev.id]
            if normal(index, shape) != normal(m.shard(sname, d, shape).index, shape):
                fail(f"{name}/{sname}: devices_indices_map gives device {d} {index}, meshgen "
                     f"{m.shard(sname, d, shape).index}")
            count("indices")
        data = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
        x = arrays(shape, ns, data)
        for shard in x.addressable_shards:
            d = position[shard.device.id]
            want = m.shard(sname, d, shape)
            if normal(shard.index, shape) != normal(want.index, shape):
                fail(f"{name}/{sname}: device {d}'s shard is {shard.index}, meshgen "
                     f"{want.index}")
            if shard.replica_id != want.replica_id:
                fail(f"{name}/{sname}: device {d}'s replica_id is {shard.replica_id}, meshgen "
                     f"{want.replica_id}")
            if not np.array_equal(np.asarray(shard.data), data[want.index]):
                fail(f"{name}/{sname}: device {d} holds other data than data[{want.index}]")
            count("shards")
        count("shardings")


def expect_mismatch(name, m, want, devices=None):
    try:
        m.jax_mesh(devices)
    except meshgen.MismatchError as e:
        if want not in str(e):
            fail(f"{name}: the mismatch says {e}, expected {want!r}")
        count("mismatches")
        return
    fail(f"{name}: jax_mesh() accepted a job that is not the mesh's")


def run_jax_cpu(out_dir, n):
    import jax

    devices = jax.devices()
    if len(devices) != n or devices[0].platform != "cpu":
        fail(f"jax.devices() is {len(devices)} {devices[0].platform} devices, expected {n} cpu "
             "(XLA_FLAGS=--xla_force_host_platform_device_count, JAX_PLATFORMS=cpu)")
        finish(f"jax-cpu-{n}")

    def put(shape, ns, data):
        return jax.device_put(data, ns)

    for case in load_cases(out_dir, f"jax-cpu-{n}"):
        m = meshgen.load(case["doc"])
        if "expect_error" in case:
            expect_mismatch(case["name"], m, case["expect_error"])
            continue
        jm = m.jax_mesh()
        check_jax_mesh(case["name"], m, jm, devices)
        check_jax_shards(case["name"], m, jm, devices, put)
    # One device short of the mesh: refused with the numbers.
    m = meshgen.load(load_cases(out_dir, f"jax-cpu-{n}")[0]["doc"])
    expect_mismatch("one device short", m, f"jax.devices() has {n - 1} devices in 1 process; "
                    f"the mesh wants {n} in 1", devices[:-1])
    finish(f"jax-cpu-{n}")


def run_jax_worker(out_dir, k, port):
    """One of two processes: jax.distributed on localhost, 4 CPU devices."""
    import jax

    jax.distributed.initialize(coordinator_address=f"localhost:{port}", num_processes=2,
                               process_id=k)
    devices = jax.devices()
    ids = [d.id for d in devices]
    count("devices", len(devices))
    if sorted({d.process_index for d in devices}) != [0, 1] or jax.process_index() != k:
        fail(f"process {k}: jax.devices() spans processes "
             f"{sorted({d.process_index for d in devices})}")

    def from_callback(shape, ns, data):
        return jax.make_array_from_callback(shape, ns, lambda index: data[index])

    for case in load_cases(out_dir, "jax-procs"):
        m = meshgen.load(case["doc"])
        if "expect_error" in case:
            expect_mismatch(case["name"], m, case["expect_error"])
            continue
        jm = m.jax_mesh()
        check_jax_mesh(case["name"], m, jm, devices)
        position = {d.id: i for i, d in enumerate(devices)}
        local = sorted(position[d.id] for d in devices if d.process_index == k)
        if local != sorted(m.processes[k].devices):
            fail(f"{case['name']}: process {k} holds jax.devices() positions {local}, meshgen's "
                 f"process {k} {sorted(m.processes[k].devices)}")
        check_jax_shards(case["name"], m, jm, devices, from_callback)
    print(f"DEVICE IDS process {k}: {ids}")
    finish(f"jax-procs[{k}]")


def run_jax_procs(out_dir):
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, JAX_PLATFORMS="cpu",
               XLA_FLAGS="--xla_force_host_platform_device_count=4")
    workers = [subprocess.Popen([sys.executable, __file__, "jax-worker", out_dir, str(k),
                                 str(port)], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True) for k in range(2)]
    rc = 0
    for k, w in enumerate(workers):
        try:
            out, _ = w.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            w.kill()
            out, _ = w.communicate()
            print(f"FAIL: process {k} did not finish in 600 s")
            rc = 1
        lines = [x for x in out.splitlines() if x.startswith(("TALLY", "FAIL", "DEVICE IDS"))]
        print("\n".join(lines) if lines else out[-3000:])
        rc = rc or w.returncode
    sys.exit(1 if rc else 0)


def run_jax_gpu(out_dir):
    import jax

    devices = jax.devices()
    if devices[0].platform not in ("gpu", "cuda", "rocm"):
        print(f"SKIP jax-gpu: jax.devices() are {devices[0].platform} devices")
        return
    cases = [c for c in load_cases(out_dir, "gpu") if c["gpus"] == len(devices)]
    if not cases:
        print(f"SKIP jax-gpu: no case for {len(devices)} GPUs (1, 2, 4, 8 or 16)")
        return

    def put(shape, ns, data):
        return jax.device_put(data, ns)

    for case in cases:
        m = meshgen.load(case["doc"])
        jm = m.jax_mesh()
        check_jax_mesh(case["name"], m, jm, devices)
        check_jax_shards(case["name"], m, jm, devices, put)
    # The same mesh on CPU devices of this JAX: refused as the wrong platform.
    cpus = jax.devices("cpu")
    if len(cpus) >= len(devices):
        expect_mismatch("gpu mesh on cpu devices", meshgen.load(cases[0]["doc"]),
                        "is a cpu device; mesh", cpus[:len(devices)])
    finish("jax-gpu")


# ---- PyTorch --------------------------------------------------------------------------


def fake_world(world, rank):
    import torch.distributed as dist

    try:
        from torch.testing._internal.distributed.fake_pg import FakeStore
    except ImportError:
        FakeStore = dist.HashStore
    if dist.is_initialized():
        dist.destroy_process_group()
    dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=world)


def nested(flat, sizes):
    """A flat list as nested lists of the given sizes (row-major)."""
    if len(sizes) <= 1:
        return list(flat)
    step = len(flat) // sizes[0]
    return [nested(flat[i * step:(i + 1) * step], sizes[1:]) for i in range(sizes[0])]


def check_torch_rank(name, m, rank, dm):
    import torch.distributed as dist

    ranks = [m.process_of(d) for d in m.device_ids]
    if dm.mesh.tolist() != nested(ranks, m.axis_sizes):
        fail(f"{name}: rank {rank}'s DeviceMesh holds {dm.mesh.tolist()}")
    dev = m.processes[rank].devices[0]
    if list(dm.get_coordinate() or []) != list(m.coords(dev)):
        fail(f"{name}: rank {rank}'s coordinate {dm.get_coordinate()}, meshgen "
             f"{m.coords(dev)}")
    # A process group's ranks come back sorted (c10d's new_group sorts
    # them); the order of a group is the sub-mesh's, compared below.
    for k, axis in enumerate(m.axis_names):
        want = [m.process_of(d) for d in m.group(dev, axis)]
        got = dist.get_process_group_ranks(dm.get_group(k))
        if sorted(got) != sorted(want):
            fail(f"{name}: rank {rank}'s {axis} group is {got}, meshgen {want}")
        count("dimension groups")
    for r in range(1, len(m.axis_names) + 1):
        for axes in itertools.combinations(m.axis_names, r):
            want = [m.process_of(d) for d in m.group(dev, axes)]
            sub = dm[axes] if len(axes) > 1 else dm[axes[0]]
            sizes = [m.shape[a] for a in axes]
            if sub.mesh.tolist() != nested(want, sizes):
                fail(f"{name}: rank {rank}'s sub-mesh {axes} is {sub.mesh.tolist()}, meshgen "
                     f"{nested(want, sizes)}")
            count("sub-meshes")
            if len(axes) == 1:
                continue
            flat = sub._flatten("flat_" + "_".join(axes))
            got = dist.get_process_group_ranks(flat.get_group())
            if flat.mesh.tolist() != want or sorted(got) != sorted(want):
                fail(f"{name}: rank {rank}'s _flatten{axes} holds {flat.mesh.tolist()}, its "
                     f"group {got}, meshgen {want}")
            count("flattened groups")


def run_torch(out_dir, worlds):
    import torch.distributed as dist

    for w in worlds:
        for case in load_cases(out_dir, f"torch-{w}"):
            m = meshgen.load(case["doc"])
            for rank in range(w):
                fake_world(w, rank)
                dm = m.torch_device_mesh("cpu")
                check_torch_rank(case["name"], m, rank, dm)
                count("ranks")
            count("meshes")
            if w > 1:
                fake_world(w - 1, 0)
                try:
                    m.torch_device_mesh("cpu")
                    fail(f"{case['name']}: torch_device_mesh accepted world size {w - 1}")
                except meshgen.MismatchError as e:
                    if f"torch.distributed has world size {w - 1}; mesh" not in str(e):
                        fail(f"{case['name']}: the mismatch says {e}")
                    count("mismatches")
    if dist.is_initialized():
        dist.destroy_process_group()
    finish("torch")


def run_torch_gpu(out_dir):
    import torch

    if not torch.cuda.is_available():
        print("SKIP torch-gpu: torch.cuda.is_available() is False")
        return
    case = next(c for c in load_cases(out_dir, "gpu") if c["gpus"] == 1)
    m = meshgen.load(case["doc"])
    fake_world(1, 0)
    dm = m.torch_device_mesh("cuda")
    check_torch_rank(case["name"], m, 0, dm)
    if torch.cuda.current_device() != m.torch_device(0):
        fail(f"the current device is {torch.cuda.current_device()}, meshgen's "
             f"{m.torch_device(0)}")
    count("meshes")
    finish("torch-gpu")


# ---- mesh_utils ------------------------------------------------------------------------


class Record:
    """A device as mesh_utils reads one: id, process and slice index,
    platform and kind, and on TPU the chip."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return f"Record({self.__dict__})"


def records(m):
    doc = m.document
    owner = {d: p.id for p in m.processes for d in p.devices}
    out = []
    for d in m.devices:
        host = doc["hosts"][d.host]
        kw = dict(id=d.id, process_index=owner.get(d.id, -1), slice_index=host["granule"],
                  platform="tpu" if d.kind == "tpu" else "cpu",
                  device_kind=d.model if d.kind == "tpu" else "cpu")
        if d.coords is not None:
            kw.update(coords=d.coords, core_on_chip=d.core_on_chip)
        out.append(Record(**kw))
    return out


def run_mesh_utils(out_dir):
    import numpy as np
    from jax.experimental import mesh_utils

    for case in load_cases(out_dir, "mesh-utils"):
        m = meshgen.load(case["doc"])
        if m.order not in ("inventory", "torus"):
            continue
        devs = records(m)[:m.size]
        ici = [a.ici for a in m.axes]
        dcn = [a.dcn for a in m.axes]
        split = (m.document.get("tpu") or {}).get("method") == "split"
        try:
            if math.prod(dcn) > 1:
                got = mesh_utils.create_hybrid_device_mesh(ici, dcn, devs,
                                                           allow_split_physical_axes=split)
            else:
                got = mesh_utils.create_device_mesh(m.axis_sizes, devs,
                                                    allow_split_physical_axes=split)
        except Exception as e:  # noqa: BLE001  (report what JAX says, go on)
            fail(f"{case['name']}: mesh_utils raised {type(e).__name__}: {e}")
            continue
        ids = np.vectorize(lambda r: r.id, otypes=[int])(got)
        if ids.shape != m.mesh.shape or ids.tolist() != m.mesh.tolist():
            fail(f"{case['name']}: mesh_utils gives {ids.tolist()}, meshgen "
                 f"{m.mesh.tolist()}")
        count("meshes")
    finish("mesh-utils")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    part, out_dir, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if part == "prepare":
        prepare(out_dir, rest[0])
    elif part == "jax-cpu":
        run_jax_cpu(out_dir, int(rest[0]))
    elif part == "jax-procs":
        run_jax_procs(out_dir)
    elif part == "jax-worker":
        run_jax_worker(out_dir, int(rest[0]), int(rest[1]))
    elif part == "jax-gpu":
        run_jax_gpu(out_dir)
    elif part == "torch":
        run_torch(out_dir, [int(w) for w in rest])
    elif part == "torch-gpu":
        run_torch_gpu(out_dir)
    elif part == "mesh-utils":
        run_mesh_utils(out_dir)
    else:
        sys.exit(f"unknown part {part!r}\n{__doc__}")


if __name__ == "__main__":
    main()
