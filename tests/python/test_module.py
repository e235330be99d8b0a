#!/usr/bin/env python3
"""python.unit: the meshgen Python module on its own.

Usage: test_module.py MESHGEN

- resolve documents that are bad, of another format or inconsistent: each
  refused with a DocumentError that names the key and the numbers;
- docs/reference.md §9's reference results, as tests/e2e/expect/ holds them
  (transcribed by hand from the docs, not produced by meshgen), through
  the module's coordinates, groups, stages and shards;
- the mismatch messages, with the stand-in JAX and PyTorch of
  tests/python/standins: the whole message where it carries the numbers;
- meshgen.resolve(): diagnostics, notes, exit codes, finding the
  executable, a spec named like an option;
- every shipped config (configs/meshes, configs/examples) read by the
  module exactly as `meshgen resolve` prints it, and built into a JAX mesh.
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

# The tests import the module from the source tree, which they never write to.
sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(HERE, "standins")]

import jax  # noqa: E402  (the stand-in)
import meshgen  # noqa: E402
import torch  # noqa: E402  (the stand-in)

MESHGEN = None
_CACHE = {}


def cli_resolve(spec, *extra):
    """`meshgen resolve` as JSON, straight from the command."""
    key = (spec,) + extra
    if key not in _CACHE:
        out = subprocess.run([MESHGEN, "resolve", *extra, spec], check=True,
                             capture_output=True).stdout
        _CACHE[key] = json.loads(out)
    return copy.deepcopy(_CACHE[key])


def config(name):
    return os.path.join(ROOT, "configs", "meshes", name)


class Documents(unittest.TestCase):
    """Bad, old and inconsistent resolve documents."""

    def setUp(self):
        self.doc = cli_resolve(config("pipeline-16.yaml"))

    def refused(self, doc, *parts):
        with self.assertRaises(meshgen.DocumentError) as cm:
            meshgen.load(doc)
        for part in parts:
            self.assertIn(part, str(cm.exception))
        return str(cm.exception)

    def test_valid_document(self):
        m = meshgen.load(self.doc)
        self.assertEqual(m.axis_names, ("pp", "dp", "tp"))
        self.assertEqual(m.shape, {"pp": 4, "dp": 4, "tp": 8})
        self.assertEqual(m.axis_types, ("explicit", "auto", "auto"))
        self.assertEqual(m.mpmd, "pp")
        self.assertEqual(len(m.processes), 16)
        self.assertEqual(m.mesh.shape, (4, 4, 8))
        self.assertEqual(m.mesh.ravel().tolist(), self.doc["mesh"])

    def test_unknown_keys_are_ignored(self):
        # docs/reference.md §7: keys may be added anywhere.
        self.doc["later"] = {"x": 1}
        self.doc["devices"][0]["later"] = [1, 2]
        self.doc["axes"][0]["later"] = None
        self.assertEqual(meshgen.load(self.doc).devices[0].id, 0)

    def test_other_format_versions(self):
        self.doc["meshgen-resolve"] = 2
        msg = self.refused(self.doc)
        self.assertEqual(msg, '"meshgen-resolve": the document is format 2: it was written by a '
                         f"newer meshgen; this meshgen module ({meshgen.__version__}) reads "
                         "format 1 only: use the module of the meshgen release that wrote it")
        self.doc["meshgen-resolve"] = 0
        self.refused(self.doc, "format 0", "no meshgen writes format 0", "reads format 1")
        self.doc["meshgen-resolve"] = "1"
        self.refused(self.doc, 'expected the format number 1, found the string "1"')
        self.doc["meshgen-resolve"] = True
        self.refused(self.doc, "found a boolean")
        del self.doc["meshgen-resolve"]
        self.refused(self.doc, 'not a meshgen resolve document: it has no "meshgen-resolve" '
                     "key (its keys: axes, device_kind, devices, digest, hosts, mesh, mpmd, name)")

    def test_not_json(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mesh.json")
            with open(path, "w") as f:
                f.write('{"meshgen-resolve": 1,\n "name": "x",\n "axes": [1, 2,]}\n')
            self.refused(path, f"{path}:3:16: not JSON: Expecting value")
            with open(path, "wb") as f:
                f.write(b'{"name": "\xff"}')
            self.refused(path, f"{path}: not UTF-8 (byte 10)")
            with open(path, "w") as f:
                f.write("[1, 2]")
            self.refused(path, f"{path}: expected an object, found an array")
            self.refused(os.path.join(tmp, "none.json"), "none.json: cannot read it: No such file")
            with open(path, "w") as f:
                json.dump(self.doc, f)
            self.assertEqual(meshgen.load(path).device_ids, meshgen.load(self.doc).device_ids)
        with self.assertRaises(TypeError):
            meshgen.load(42)

    def test_inconsistent_documents(self):
        d = self.doc
        cases = [
            (lambda: d["devices"][3].update(id=4),
             "devices[3].id: 4, but a device's id is its position (3)"),
            (lambda: d["devices"][5].update(host=16),
             "devices[5].host: 16 is not a host (the document has 16)"),
            (lambda: d["devices"][5].update(host=True), "devices[5].host: expected an integer, "
             "found a boolean"),
            (lambda: d["devices"][0].update(kind="fpga"),
             'devices[0].kind: "fpga" is not one of gpu, core, numa, package, pu, tpu'),
            (lambda: d["devices"][0].update(coords=[1, 2]),
             "devices[0].coords: expected at least 3 entries, found 2"),
            (lambda: d["devices"][0].pop("local"),
             'devices[0]: the required key "local" is missing'),
            (lambda: d.pop("processes"), 'the required key "processes" is missing'),
            (lambda: d["mesh"].pop(), "mesh: 127 positions, but the axes (4 x 4 x 8) make 128"),
            (lambda: d["mesh"].__setitem__(1, d["mesh"][0]),
             f"mesh[1]: device {d['mesh'][0]} is already at mesh[0]"),
            (lambda: d["mesh"].__setitem__(2, 128),
             "mesh[2]: device 128 does not exist (the document has 128 devices)"),
            (lambda: d["mesh"].__setitem__(2, -1),
             "mesh[2]: expected an integer of at least 0, found -1"),
            (lambda: d["axes"][1].update(size=5), "axes[1]: size 5 is not ici x dcn = 1 x 4 = 4"),
            (lambda: d["axes"][2].update(name="pp"),
             'axes[2].name: axis "pp" appears twice (first at axes[0])'),
            (lambda: d["axes"][2].update(name="2tp"), 'axes[2].name: "2tp" is not an identifier'),
            (lambda: d["axes"][0].update(type="Explicit"),
             'axes[0].type: "Explicit" is not one of auto, explicit, manual'),
            (lambda: d.update(axes=[]), "axes: expected at least 1 entries, found 0"),
            (lambda: d.update(mpmd="stage"), 'mpmd: "stage" is not an axis of the mesh'),
            (lambda: d["processes"][1].update(id=0),
             "processes[1].id: 0, but a process's id is its position (1)"),
            (lambda: d["processes"][1]["devices"].append(0),
             "processes[1].devices[8]: device 0 already belongs to process 0"),
            (lambda: d["processes"][15]["devices"].pop(),
             "belongs to no process"),
            (lambda: d["shardings"]["stage_weights"]["spec"][1].append("zz"),
             'shardings.stage_weights.spec[1][1]: "zz" is not an axis of the mesh'),
            (lambda: (d["shardings"]["stage_weights"]["spec"].__setitem__(0, ["tp"]),
                      d["shardings"]["stage_weights"]["shards"].__setitem__(0, 8)),
             'shardings.stage_weights.spec[1][0]: axis "tp" already splits dimension 0'),
            (lambda: d["shardings"]["stage_weights"]["shards"].__setitem__(1, 4),
             "shardings.stage_weights.shards[1]: 4, but the axes of spec[1] make 8 shards"),
            (lambda: d["shardings"]["stage_weights"]["shards"].pop(),
             "shardings.stage_weights: spec has 2 dimensions and shards 1"),
            (lambda: d["shardings"]["stage_weights"].update(shape=[4, 12]),
             "shardings.stage_weights.shape[1]: 12 does not divide into 8 shards"),
            (lambda: d["shardings"].update({"9x": {"spec": [], "shards": []}}),
             'shardings.9x: "9x" is not an identifier'),
            (lambda: d["hosts"][0].update(name=""), "hosts[0].name: a host name is never empty"),
            (lambda: d["hosts"][0].pop("slice"), 'hosts[0]: the required key "slice" is missing'),
        ]
        for break_it, message in cases:
            with self.subTest(message=message):
                # The lambdas see each fresh document through the variable d.
                d = cli_resolve(config("pipeline-16.yaml"))
                break_it()
                self.refused(d, message)

    def test_mutations_never_crash(self):
        """Documents with one value replaced (a fixed seed): each is read or
        refused with a DocumentError, never another exception."""
        import random

        rng = random.Random(25)
        values = [None, True, -1, 0, 1, 2 ** 70, 1.5, "", "tp", "x" * 40, [], [0], [None],
                  {}, {"a": 1}, [[]], [["tp", "tp"]]]

        def slots(x, path=()):
            if isinstance(x, dict):
                for k, v in x.items():
                    yield path + (k,)
                    yield from slots(v, path + (k,))
            elif isinstance(x, list):
                for i, v in enumerate(x[:6]):
                    yield path + (i,)
                    yield from slots(v, path + (i,))

        base = cli_resolve(config("v5e-multislice.yaml"))
        paths = list(slots(base))
        refused = 0
        for _ in range(3000):
            doc = copy.deepcopy(base)
            path = rng.choice(paths)
            parent = doc
            for k in path[:-1]:
                parent = parent[k]
            if rng.random() < 0.1 and isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent[path[-1]] = copy.deepcopy(rng.choice(values))
            try:
                m = meshgen.load(doc)
                for name, sh in m.shardings.items():
                    if sh.shape is not None:
                        m.shard(name, m.device_ids[-1])
                m.groups(m.axis_names[-1])
            except meshgen.DocumentError:
                refused += 1
        self.assertGreater(refused, 1500)


class Reference(unittest.TestCase):
    """docs/reference.md §9's reference results (tests/e2e/expect/)."""

    CASES = [
        ("ref/hybrid_dcn_2_1.yaml", None, "hybrid_dcn_2_1.json"),
        ("ref/hybrid_dcn_1_2.yaml", None, "hybrid_dcn_1_2.json"),
        ("ref/dcn_infer.yaml", None, "dcn_infer.json"),
        ("ref/jaxpp.yaml", "synthetic:pack:2 core:8 pu:1", "jaxpp.json"),
        ("ref/sharding.yaml", "synthetic:pack:2 core:4 pu:1", "sharding.json"),
        ("ref/groups.yaml", "synthetic:pack:2 core:8 pu:1", "groups.json"),
        ("alt_sockets.yaml", None, "alt_sockets.json"),
    ]

    def test_reference_results(self):
        e2e = os.path.join(ROOT, "tests", "e2e")
        for spec, inventory, expect in self.CASES:
            with self.subTest(spec=spec):
                m = meshgen.resolve(os.path.join(e2e, spec), inventory, MESHGEN)
                with open(os.path.join(e2e, "expect", expect)) as f:
                    want = json.load(f)
                self.check(m, want)

    def check(self, m, want):
        if "mesh" in want:
            self.assertEqual(m.mesh.tolist(), want["mesh"])
        for key in ("ici", "dcn"):
            if key in want:
                self.assertEqual([getattr(a, key) for a in m.axes], want[key])
        for dev, coords in want.get("coords", {}).items():
            self.assertEqual(list(m.coords(int(dev))), coords)
        if "stages" in want:
            stages = [[] for _ in want["stages"]]
            for d in m.device_ids:
                stages[m.stage_of(d)].append(d)
            self.assertEqual(stages, want["stages"])
            for p in m.processes:
                self.assertEqual(p.stage, m.stage_of(p.devices[0]))
        for axis, groups in want.get("groups", {}).items():
            self.assertEqual([list(g) for g in m.groups(axis)], groups)
            for number, g in enumerate(groups):
                for rank, d in enumerate(g):
                    self.assertEqual(m.group_index(d, axis), (number, rank))
        for name, devices in want.get("shards", {}).items():
            for dev, sl in devices.items():
                index = m.shard(name, int(dev)).index
                self.assertEqual([s.start or 0 for s in index], sl["start"])
                shape = m.shardings[name].shape
                self.assertEqual([(s.stop or n) - (s.start or 0) for s, n in zip(index, shape)],
                                 sl["size"])
        for name, replicas in want.get("replicas", {}).items():
            self.assertEqual([m.shard(name, d).replica_id for d in range(len(replicas))],
                             replicas)

    def test_shards_as_jax_writes_them(self):
        m = meshgen.resolve(os.path.join(ROOT, "tests", "e2e", "ref", "sharding.yaml"),
                            "synthetic:pack:2 core:4 pu:1", MESHGEN)
        # [[a, c], b] over (8, 4): device 1 (a0 b0 c1) holds rows 2:4, columns 0:2.
        self.assertEqual(m.shard("rows", 1), meshgen.Shard(1, (slice(2, 4), slice(0, 2)), 0))
        # [a] leaves dimension 1 whole: slice(None), as JAX's index has it.
        self.assertEqual(m.shard("outer", 6).index, (slice(4, 8), slice(None)))
        # Dimensions past the spec are whole too.
        self.assertEqual(m.shard("outer", 6, (8, 4, 3)).index,
                         (slice(4, 8), slice(None), slice(None)))
        self.assertEqual(m.devices_indices_map("cols")[5], (slice(None), slice(1, 2)))
        with self.assertRaises(ValueError) as cm:
            m.shard("rows", 1, (6, 4))
        self.assertIn("splits dimension 0 into 4 shards; 6 does not divide by 4", str(cm.exception))
        with self.assertRaises(ValueError):
            m.shard("rows", 1, (8,))
        with self.assertRaises(KeyError):
            m.shard("nope", 1)
        m2 = meshgen.resolve(config("two-host-dp-tp.yaml"), executable=MESHGEN)
        with self.assertRaises(ValueError) as cm:
            m2.shard("weights", 0)
        self.assertIn("sharding 'weights' gives no shape", str(cm.exception))
        with self.assertRaises(KeyError):
            m2.coords(99)
        self.assertEqual(m2.device_at(m2.coords(9)), 9)


class JaxMismatch(unittest.TestCase):
    """What jax_mesh() says when jax.devices() is not the mesh's job."""

    def setUp(self):
        self.m = meshgen.resolve(config("two-host-dp-tp.yaml"), executable=MESHGEN)
        self.doc = self.m.document

    def mismatch(self, devices):
        jax.set_devices(devices)
        with self.assertRaises(meshgen.MismatchError) as cm:
            self.m.jax_mesh()
        return str(cm.exception)

    def test_matching_job(self):
        devices = jax.devices_for(self.doc, platform="gpu")
        jax.set_devices(devices)
        jm = self.m.jax_mesh()
        self.assertEqual([d.id for d in jm.devices.flat], [devices[i].id for i in self.doc["mesh"]])
        # The explicit list is used as given, not jax.devices().
        jax.set_devices([])
        self.assertIs(self.m.jax_mesh(devices).devices.flat[0], devices[self.doc["mesh"][0]])

    def test_fewer_processes(self):
        one = [jax.Device(i, 0, "gpu") for i in range(8)]
        self.assertEqual(self.mismatch(one),
                         "jax.devices() has 8 devices in 1 process; the mesh wants 16 in 2: was "
                         "jax.distributed.initialize called with 2 processes (process k on the "
                         "k-th host of the inventory)?")

    def test_fewer_devices_per_process(self):
        four = [jax.Device(i, i // 4, "gpu") for i in range(8)]
        self.assertEqual(self.mismatch(four),
                         "jax.devices() has 8 devices in 2 processes; the mesh wants 16 in 2: "
                         "does each process see its 8 devices (all of its host's, "
                         "CUDA_VISIBLE_DEVICES unset, or local_device_ids in "
                         "jax.distributed.initialize)?")

    def test_more_devices(self):
        devices = [jax.Device(i, i // 8, "gpu") for i in range(32)]
        self.assertIn("has 32 devices in 4 processes; the mesh wants 16 in 2", self.mismatch(devices))

    def test_processes_in_another_order(self):
        swapped = jax.devices_for(self.doc, processes=[1] * 8 + [0] * 8, platform="gpu")
        self.assertEqual(
            self.mismatch(swapped),
            "16 of the mesh's 16 devices are in another process than the inventory says: "
            "jax.devices()[0] is in process 1, the mesh puts it in process 0 (device 0: host "
            "tioga01, local 0); jax.devices()[1] is in process 1, the mesh puts it in process 0 "
            "(device 1: host tioga01, local 1); jax.devices()[2] is in process 1, the mesh puts "
            "it in process 0 (device 2: host tioga01, local 2) (and 13 more): process k must run "
            "on the k-th host of the inventory (jax.distributed.initialize(process_id=k)), seeing "
            "its devices in PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID)")

    def test_one_device_in_the_wrong_process(self):
        procs = [0] * 7 + [1] * 9
        devices = jax.devices_for(self.doc, processes=procs, platform="gpu")
        self.assertIn("1 of the mesh's 16 devices are in another process than the inventory "
                      "says: jax.devices()[7] is in process 1, the mesh puts it in process 0 "
                      "(device 7: host tioga01, local 7):", self.mismatch(devices))

    def test_platform(self):
        devices = jax.devices_for(self.doc, platform="cpu")
        self.assertEqual(self.mismatch(devices),
                         "jax.devices()[0] is a cpu device; mesh 'two_host' places gpu devices "
                         "(device 0: host tioga01, local 0): is this JAX built for GPUs "
                         "(jax[cuda12] or jax[rocm])?")

    def test_tpu_chips(self):
        m = meshgen.resolve(config("v5p-128.yaml"), executable=MESHGEN)
        devices = jax.devices_for(m.document)
        jax.set_devices(devices)
        self.assertEqual(m.jax_mesh().devices.size, 64)
        devices[5].coords = (3, 3, 3)
        with self.assertRaises(meshgen.MismatchError) as cm:
            m.jax_mesh()
        want = m.devices[5].coords
        self.assertEqual(
            str(cm.exception),
            "1 of the mesh's 64 TPU devices are other chips than the inventory says: "
            f"jax.devices()[5] is chip (3,3,3) core 0, the inventory's device 5 is chip "
            f"({','.join(map(str, want))}) core 0: is the inventory's topology this slice's "
            "(docs/tpu.md), with its hosts in worker order?")

    def test_fewer_devices_used(self):
        with tempfile.TemporaryDirectory() as tmp:
            spec = os.path.join(tmp, "part.yaml")
            with open(spec, "w") as f:
                f.write("meshgen: 1\nname: part\nmesh:\n  axes: [dp, tp]\n  shape: [2, 2]\n"
                        "  devices: 4\n  types: [auto, auto]\n")
            m = meshgen.resolve(spec, "synthetic:pack:2 core:4 pu:1", MESHGEN)
        # The job may hold more devices than the mesh uses (JAX's devices[:4]).
        jax.set_devices([jax.Device(100 + i) for i in range(8)])
        self.assertEqual([d.id for d in m.jax_mesh().devices.flat], [100, 101, 102, 103])
        jax.set_devices([jax.Device(100 + i) for i in range(3)])
        with self.assertRaises(meshgen.MismatchError) as cm:
            m.jax_mesh()
        self.assertIn("has 3 devices in 1 process; the mesh wants at least 4 in 1",
                      str(cm.exception))
        # A JAX without AxisType takes a mesh whose axes are all auto.
        saved = jax.sharding.AxisType
        try:
            del jax.sharding.AxisType
            jax.set_devices([jax.Device(i) for i in range(8)])
            self.assertEqual(m.jax_mesh().axis_names, ("dp", "tp"))
            jax.set_devices(jax.devices_for(self.doc, platform="gpu"))
            with self.assertRaises(meshgen.Error) as cm:
                self.m.jax_mesh()
            self.assertIn("has no jax.sharding.AxisType, and mesh 'two_host' has typed axes "
                          "(dp: explicit, tp: explicit)", str(cm.exception))
        finally:
            jax.sharding.AxisType = saved

    def test_named_sharding_on_another_mesh(self):
        jax.set_devices(jax.devices_for(self.doc, platform="gpu"))
        other = jax.sharding.Mesh(jax.devices()[:16], ("x",))
        with self.assertRaises(meshgen.Error) as cm:
            self.m.named_sharding("batch", other)
        self.assertEqual(str(cm.exception), "sharding 'batch' is for mesh 'two_host' (dp=2, "
                         "tp=8); the JAX mesh given has x=16: build it with Mesh.jax_mesh()")
        self.assertEqual(tuple(self.m.named_sharding("batch", self.m.jax_mesh()).spec),
                         ("dp", None))


class TorchMismatch(unittest.TestCase):
    """What torch_device_mesh() and torch_device() say when the job differs."""

    def setUp(self):
        self.m = meshgen.resolve(os.path.join(HERE, "ranks.yaml"), executable=MESHGEN)
        os.environ.pop("LOCAL_RANK", None)
        torch.distributed.destroy()

    def tearDown(self):
        os.environ.pop("LOCAL_RANK", None)
        torch.distributed.destroy()

    def mismatch(self, device_type="cuda"):
        with self.assertRaises(meshgen.MismatchError) as cm:
            self.m.torch_device_mesh(device_type)
        return str(cm.exception)

    def test_matching_job(self):
        torch.distributed.init(16, 9)
        torch.cuda.reset(8)
        os.environ["LOCAL_RANK"] = "1"
        dm = self.m.torch_device_mesh()
        self.assertEqual(dm.mesh.tolist(), [[[0, 2, 4, 6], [1, 3, 5, 7]],
                                            [[8, 10, 12, 14], [9, 11, 13, 15]]])
        self.assertEqual(torch.cuda.calls, [1])
        self.assertEqual(self.m.torch_device(9), 1)
        # A device already chosen, and the right one, is left alone.
        torch.cuda.reset(8, current=1)
        self.m.torch_device_mesh()
        self.assertEqual(torch.cuda.calls, [])
        # CPU meshes touch no device.
        torch.cuda.reset(0)
        self.assertEqual(self.m.torch_device_mesh("cpu").device_type, "cpu")

    def test_not_initialized(self):
        self.assertEqual(self.mismatch(), "torch.distributed is not initialized: call "
                         "torch.distributed.init_process_group() in each of mesh 'ranks''s 16 "
                         "ranks first")

    def test_world_size(self):
        torch.distributed.init(8, 0)
        torch.cuda.reset(8)
        self.assertEqual(self.mismatch(), "torch.distributed has world size 8; mesh 'ranks' wants "
                         "16 ranks, one per device: was torchrun started with --nnodes=2 "
                         "--nproc-per-node=8?")

    def test_devices_hidden(self):
        torch.distributed.init(16, 3)
        torch.cuda.reset(1)
        self.assertEqual(self.mismatch(), "torch.cuda.device_count() is 1 in rank 3; the mesh puts "
                         "rank 3 on device 3 of host alt1, which has 8: let each process see all "
                         "of its host's devices (CUDA_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES "
                         "unset)")

    def test_other_device_already_current(self):
        torch.distributed.init(16, 3)
        torch.cuda.reset(8, current=0)
        self.assertEqual(self.mismatch(), "rank 3 already uses cuda device 0; the mesh puts it on "
                         "device 3 of host alt1: call torch.cuda.set_device(mesh.torch_device(3)) "
                         "before the first use of the device, or leave it to "
                         "torch_device_mesh()")

    def test_local_rank(self):
        torch.distributed.init(16, 10)
        torch.cuda.reset(8)
        os.environ["LOCAL_RANK"] = "1"
        self.assertEqual(self.mismatch(), "LOCAL_RANK is 1 in rank 10; the mesh makes rank 10 the "
                         "process 2 of host alt2 (ranks 8 to 15): was torchrun started with "
                         "--nnodes=2 --nproc-per-node=8, hosts in the inventory's order?")

    def test_torch_device(self):
        self.assertEqual([self.m.torch_device(r) for r in range(16)], list(range(8)) * 2)
        with self.assertRaises(meshgen.MismatchError) as cm:
            self.m.torch_device(16)
        self.assertEqual(str(cm.exception), "rank 16 is not a process of mesh 'ranks', which has "
                         "16 (ranks 0 to 15)")
        with self.assertRaises(TypeError):
            self.m.torch_device("3")

    def test_processes_per_host(self):
        m = meshgen.resolve(config("two-host-dp-tp.yaml"), executable=MESHGEN)
        torch.distributed.init(2, 0)
        for call in (lambda: m.torch_device_mesh(), lambda: m.torch_device(0)):
            with self.assertRaises(meshgen.Error) as cm:
                call()
            self.assertEqual(str(cm.exception), "process 0 of mesh 'two_host' holds 8 devices: "
                             "PyTorch runs one rank per device; resolve the spec with "
                             "processes: device")


class Resolve(unittest.TestCase):
    """meshgen.resolve(): running the command."""

    def test_refused_spec(self):
        spec = os.path.join(ROOT, "tests", "cases", "axis_twice.yaml")
        with self.assertRaises(meshgen.ResolveError) as cm:
            meshgen.resolve(spec, executable=MESHGEN)
        e = cm.exception
        self.assertEqual(e.returncode, 1)
        self.assertIn("axis 'tp' appears twice [axis-name-unique]", e.diagnostics)
        self.assertTrue(str(e).startswith("meshgen resolve refused the inputs:\n"))
        self.assertIn("axis_twice.yaml:8:18: error: axis 'tp' appears twice", str(e))

    def test_missing_spec(self):
        with self.assertRaises(meshgen.ResolveError) as cm:
            meshgen.resolve("/nonexistent/mesh.yaml", executable=MESHGEN)
        self.assertEqual(cm.exception.returncode, 2)
        self.assertIn("cannot open '/nonexistent/mesh.yaml'", str(cm.exception))

    def test_no_executable(self):
        with self.assertRaises(meshgen.ResolveError) as cm:
            meshgen.resolve("x.yaml", executable="/nonexistent/meshgen")
        self.assertIn("cannot run /nonexistent/meshgen: No such file", str(cm.exception))
        self.assertIsNone(cm.exception.returncode)
        with self.assertRaises(TypeError):
            meshgen.resolve()

    def test_notes_mesh_string_and_environment(self):
        m = meshgen.resolve(config("two-host-dp-tp.yaml"), executable=MESHGEN)
        self.assertEqual(len(m.notes), 1)
        self.assertIn("[inventory-template]", m.notes[0])
        m = meshgen.resolve(mesh="dp:2,tp:4", inventory="synthetic:pack:2 core:4 pu:1",
                            name="strung", executable=MESHGEN)
        self.assertEqual((m.name, m.shape, m.notes), ("strung", {"dp": 2, "tp": 4}, ()))
        # $MESHGEN_EXECUTABLE names the command when executable= does not.
        saved = os.environ.get("MESHGEN_EXECUTABLE")
        try:
            os.environ["MESHGEN_EXECUTABLE"] = MESHGEN
            self.assertEqual(meshgen.resolve(mesh="x:8", inventory="synthetic:pack:1 core:8 pu:1").size, 8)
            os.environ["MESHGEN_EXECUTABLE"] = "/nonexistent/meshgen-env"
            with self.assertRaises(meshgen.ResolveError) as cm:
                meshgen.resolve(mesh="x:8", inventory="synthetic:pack:1 core:8 pu:1")
            self.assertIn("/nonexistent/meshgen-env", str(cm.exception))
            self.assertEqual(meshgen.resolve(mesh="x:8", inventory="synthetic:pack:1 core:8 pu:1",
                                             executable=MESHGEN).size, 8)
        finally:
            if saved is None:
                os.environ.pop("MESHGEN_EXECUTABLE", None)
            else:
                os.environ["MESHGEN_EXECUTABLE"] = saved

    def test_spec_named_like_an_option(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "--help"), "w") as f:
                f.write("meshgen: 1\nname: dashed\nmesh:\n  axes: [dp]\n  shape: [-1]\n")
            cwd = os.getcwd()
            try:
                os.chdir(tmp)
                m = meshgen.resolve("--help", "synthetic:pack:1 core:4 pu:1", MESHGEN)
            finally:
                os.chdir(cwd)
        self.assertEqual((m.name, m.size), ("dashed", 4))


class Configs(unittest.TestCase):
    """Every shipped config through the module."""

    def test_configs(self):
        specs = sorted(glob.glob(os.path.join(ROOT, "configs", "meshes", "*.yaml"))
                       + glob.glob(os.path.join(ROOT, "configs", "examples", "*.yaml")))
        self.assertGreaterEqual(len(specs), 7)
        for spec in specs:
            with self.subTest(spec=os.path.relpath(spec, ROOT)):
                m = meshgen.resolve(spec, executable=MESHGEN)
                self.assertEqual(m.document, cli_resolve(spec))
                devices = jax.devices_for(m.document)
                jax.set_devices(devices)
                jm = m.jax_mesh()
                self.assertEqual([d.id for d in jm.devices.flat],
                                 [devices[i].id for i in m.document["mesh"]])
                self.assertEqual(list(jm.shape.values()), [a["size"] for a in m.document["axes"]])

    def test_version(self):
        out = subprocess.run([MESHGEN, "--version"], check=True, capture_output=True,
                             text=True).stdout.split()
        self.assertEqual(out[:2], ["meshgen", meshgen.__version__])


def main():
    global MESHGEN
    MESHGEN = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)


if __name__ == "__main__":
    main()
